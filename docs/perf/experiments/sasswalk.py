#!/usr/bin/env python3
"""Walk a SASS function (cuobjdump -sass) along its likely path and model in-order issue (as sassmodel.py).
Usage: sasswalk.py FILE START_ADDR NSTEPS [--take=addr,addr] [--off=!P1] [--lat=SHFL=26,...] [-v]
Branches: unconditional BRA taken; BRA.DIV not taken; '@Px BRA' within 40 instructions after a VOTE.ALL Px taken (the check passes);
other conditional branches not taken unless listed in --take. Prints the cycles between successive SHFL.UP issues."""
import re, sys
lat = {'SHFL': 26, 'LDS': 30, 'LDG': 400, 'LDC': 12, 'S2R': 20, 'STG': 4, 'LDGSTS': 4, 'VOTE': 6, 'ATOMG': 600,
       'BREV': 6, 'FLO': 6, 'POPC': 6}
args = [a for a in sys.argv[1:] if not a.startswith('-')]
take = set(); offp = []
for a in sys.argv:
    if a.startswith('--take='): take = {int(x, 16) for x in a[7:].split(',') if x}
    if a.startswith('--off='): offp = a[6:].split(',')
    if a.startswith('--lat='):
        for kv in a[6:].split(','):
            k, v = kv.split('='); lat[k] = int(v)
verbose = '-v' in sys.argv
lines = open(args[0]).read().split('\n')
pat = re.compile(r'/\*([0-9a-f]{4,})\*/\s+(.*?);\s+/\* (0x[0-9a-f]+) \*/')
ins = {}; order = []
i = 0
while i < len(lines):
    m = pat.search(lines[i])
    if m and i + 1 < len(lines):
        hi = int(re.search(r'/\* (0x[0-9a-f]+) \*/', lines[i + 1]).group(1), 16)
        a = int(m.group(1), 16)
        ins[a] = ((hi >> 41) & 0xf, (hi >> 46) & 7, (hi >> 49) & 7, (hi >> 52) & 0x3f, m.group(2).strip())
        order.append(a); i += 2
    else:
        i += 1
nxt = {order[k]: order[k + 1] for k in range(len(order) - 1)}
a = int(args[1], 16); nsteps = int(args[2])
bar = [0] * 6; t = 0; prev_stall = 0; started = False
ups = []; last_vote = 99; vote_p = 'P5'; n = 0
while n < 200000:
    n += 1
    stall, wb, rb, wm, text = ins[a]
    ready = t + prev_stall if started else 0
    for b in range(6):
        if wm >> b & 1: ready = max(ready, bar[b])
    t = ready; started = True
    pm = re.match(r'^@(!?U?P\w+)\s', text)
    if pm and pm.group(1) in offp: wb = rb = 7
    op = re.sub(r'^@!?U?P\w+\s+', '', text).split()[0].split('.')[0]
    if wb != 7: bar[wb] = t + lat.get(op, 20)
    if rb != 7: bar[rb] = max(bar[rb], t + 4)
    if verbose: print(f"{t:6d} {a:6x} s{stall:2d} w{wb if wb != 7 else '-'} r{rb if rb != 7 else '-'} m{wm:02x} {text}")
    prev_stall = max(stall, 1)
    if 'SHFL.UP' in text:
        ups.append((t, a))
        if len(ups) > nsteps: break
    m = re.match(r'^(@!?P\w+\s+)?BRA(\.DIV)?\s+(?:UR\d+,\s*)?(?:!?P\d,\s*)?(0x[0-9a-f]+)', text)
    if m and not m.group(2):
        tgt = int(m.group(3), 16)
        cond = m.group(1)
        if cond is None or a in take or (last_vote <= 40 and cond.strip() == '@' + vote_p):
            a = tgt; last_vote = 99; continue
    if 'EXIT' in text and not text.startswith('@'): break
    if 'VOTE.ALL' in text:
        last_vote = 0; vote_p = re.search(r'VOTE\.ALL (P\d)', text).group(1)
    else:
        last_vote += 1
    a = nxt[a]
d = [ups[k + 1][0] - ups[k][0] for k in range(len(ups) - 1)]
print('steps', len(d), 'cycles', ups[-1][0] - ups[0][0], 'mean %.1f' % (sum(d) / max(1, len(d))))
print(' '.join(f"{x}" for x in d))
