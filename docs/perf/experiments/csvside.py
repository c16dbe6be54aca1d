#!/usr/bin/env python3
"""Session 20: do hand-offs between SMs on opposite sides of the L2 make a longer lag?
Usage: csvside.py HANDOFF_LOG TRACE_CSV...
HANDOFF_LOG: the output of tests/gpu/handoff_latency (its "sm map" line: median round trip between SM 0 and SM k);
an SM whose round trip with SM 0 is above the midpoint of the map's lowest and highest values is on the other side. TRACE_CSV: HALFTONE_WAVEFRONT_TRACE_CSV
files of the same machine (columns: strip, start, chunk96, end, failed checks, polls, first check, chunk32, sm).
Prints, per traced run, the lag at the first passed check and at the end, and the failed checks, for strips whose
producer ran on the same side and on the other side."""
import re, statistics as st, sys
m = open(sys.argv[1]).read()
rt = {int(k): int(v) for k, v in (t.split(':') for t in re.search(r'sm map[^:]*:(.*)', m).group(1).split())}
mid = (min(rt.values()) + max(rt.values())) / 2
side = {0: 0}
for k, v in rt.items():
    side[k] = 0 if v < mid else 1
print('SMs per side:', sum(1 for v in side.values() if v == 0), sum(1 for v in side.values() if v == 1))
for f in sys.argv[2:]:
    runs = []
    for l in open(f):
        if l.startswith('#'):
            runs.append([])
            continue
        runs[-1].append([int(x) for x in l.strip().split(',')])
    for k, r in enumerate(runs):
        groups = {False: [], True: []}
        for i in range(1, len(r)):
            groups[side[r[i][8]] != side[r[i - 1][8]]].append((r[i][6] - r[i - 1][6], r[i][3] - r[i - 1][3], r[i][4]))
        for cross in (False, True):
            g = groups[cross]
            mean = lambda j: round(st.mean(x[j] for x in g))
            print(f'{f} run {k}: {"other" if cross else "same "} side n={len(g):3d}  lag at first check {mean(0)} ns, '
                  f'at the end {mean(1)} ns, failed checks {mean(2)}')
