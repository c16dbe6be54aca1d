// Batch runs in core: inputs to outputs (nested folders mirrored, collisions and overwrites refused before any
// work), shards that are disjoint, complete and stable, and the parallel runner's counts, skip and cancel.
#include <QtTest>

#include <QTemporaryDir>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "core/job/batch.h"

using namespace halftone;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
}

/// "prefix" followed by i (appended, not concatenated: GCC 12 warns falsely on operator+ here, bug 105329).
std::string named(const char* prefix, int i, const char* ext = "") {
    std::string s = prefix;
    s += std::to_string(i);
    s += ext;
    return s;
}

std::set<std::string> keys(const std::vector<BatchItem>& items) {
    std::set<std::string> k;
    for (const BatchItem& i : items) k.insert(i.key);
    return k;
}

}  // namespace

class TestBatch : public QObject {
    Q_OBJECT
private slots:
    void mirrorsFoldersAndPicksImages();
    void refusesCollisionsAndOverwrites();
    void shardsAreDisjointCompleteAndStable();
    void runnerCountsAndGoesOnAfterFailures();
    void skipExistingAndCancel();
};

void TestBatch::mirrorsFoldersAndPicksImages() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    touch(root / "in/a.png");
    touch(root / "in/sub/b.JPG");
    touch(root / "in/sub/deeper/c.tif");
    touch(root / "in/notes.txt");
    touch(root / "in/.hidden.png");
    touch(root / "single.pgm");
    touch(root / "in/out/old.png");  // earlier outputs inside the input folder
    BatchLayout layout;
    layout.outDir = (root / "in/out").string();
    layout.format = "pbm";
    layout.suffix = "-ht";
    std::vector<BatchItem> items;
    const Status s = planBatch({(root / "in").string(), (root / "single.pgm").string()}, layout, items);
    QVERIFY2(s, s.message().c_str());
    const std::set<std::string> expected = {"a-ht.pbm", "sub/b-ht.pbm", "sub/deeper/c-ht.pbm", "single-ht.pbm"};
    QCOMPARE(keys(items), expected);
    for (const BatchItem& i : items) QCOMPARE(fs::path(i.output), fs::path(layout.outDir) / i.key);
    QVERIFY(isImageFileName("x.WebP"));
    QVERIFY(!isImageFileName("x.txt"));
    QVERIFY(!planBatch({(root / "missing").string()}, layout, items));
}

void TestBatch::refusesCollisionsAndOverwrites() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    touch(root / "a/photo.png");
    touch(root / "b/photo.jpg");
    BatchLayout layout;
    layout.outDir = (root / "out").string();
    std::vector<BatchItem> items;
    Status s = planBatch({(root / "a/photo.png").string(), (root / "b/photo.jpg").string()}, layout, items);
    QVERIFY(!s);
    QVERIFY2(
        s.message().find("a/photo.png") != std::string::npos && s.message().find("b/photo.jpg") != std::string::npos,
        s.message().c_str());
    // the same two files inside one folder each keep their own name in the mirror: no collision
    touch(root / "c/x.png");
    touch(root / "c/x.gif");
    s = planBatch({(root / "c").string()}, layout, items);
    QVERIFY(!s);  // x.png and x.gif both map to out/x.png
    // an output that is an input
    layout.outDir = (root / "a").string();
    layout.format = "png";
    s = planBatch({(root / "a/photo.png").string()}, layout, items);
    QVERIFY(!s);
    QVERIFY2(s.message().find("one of the inputs") != std::string::npos, s.message().c_str());
    // every output that is an input, in one message
    touch(root / "a/second.png");
    touch(root / "a/third.png");
    s = planBatch({(root / "a").string()}, layout, items);
    QVERIFY(!s && items.empty());
    QVERIFY2(s.message().find("3 outputs are inputs") != std::string::npos, s.message().c_str());
    for (const char* name : {"a/photo.png", "a/second.png", "a/third.png"})
        QVERIFY2(s.message().find(name) != std::string::npos, name);
    int k = 0, n = 0;
    QVERIFY(parseShard("3/8", k, n) && k == 3 && n == 8);
    for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""}) QVERIFY2(!parseShard(bad, k, n), bad);
}

void TestBatch::shardsAreDisjointCompleteAndStable() {
    std::vector<BatchItem> items;
    for (int i = 0; i < 500; ++i) items.push_back({named("in", i), named("out", i), named("f", i, ".png")});
    for (int n : {1, 2, 3, 7}) {
        std::set<std::string> all;
        size_t total = 0;
        for (int k = 1; k <= n; ++k) {
            const auto part = shardOf(items, k, n);
            total += part.size();
            for (const BatchItem& b : part) all.insert(b.key);
            if (n > 1) QVERIFY(int(part.size()) > 500 / n / 2);  // roughly balanced
        }
        QCOMPARE(total, items.size());
        QCOMPARE(all.size(), items.size());
    }
    // adding files leaves every old file in its shard
    std::vector<BatchItem> more = items;
    more.push_back({"new", "new", "zz-new.png"});
    const std::set<std::string> before = keys(shardOf(items, 2, 3));
    std::set<std::string> after = keys(shardOf(more, 2, 3));
    after.erase("zz-new.png");
    QCOMPARE(after, before);
}

void TestBatch::runnerCountsAndGoesOnAfterFailures() {
    std::vector<BatchItem> items;
    for (int i = 0; i < 40; ++i) items.push_back({named("in", i), named("/nonexistent/out", i), named("k", i)});
    std::atomic<int> running{0}, most{0};
    std::vector<int> seen(items.size(), 0);
    std::mutex m;
    BatchOptions o;
    o.jobs = 3;
    const BatchSummary sum = runBatch(
        items, o,
        [&](const BatchItem& item, const RunControl&) {
            const int now = ++running;
            int prev = most.load();
            while (now > prev && !most.compare_exchange_weak(prev, now)) {}
            std::this_thread::yield();
            --running;
            return item.key.back() == '7' ? Status::error("broken file") : Status::ok();
        },
        [&](size_t i, const BatchItem&, const BatchOutcome& out) {
            std::lock_guard<std::mutex> lock(m);
            ++seen[i];
            if (items[i].key.back() == '7') QCOMPARE(out.message, std::string("broken file"));
        });
    QCOMPARE(sum.failed, 4);  // k7, k17, k27, k37
    QCOMPARE(sum.written, 36);
    QVERIFY(most.load() <= 3);
    for (int s : seen) QCOMPARE(s, 1);
}

void TestBatch::skipExistingAndCancel() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    touch(root / "exists.png");
    std::vector<BatchItem> items = {{"a", (root / "exists.png").string(), "exists.png"},
                                    {"b", (root / "new.png").string(), "new.png"}};
    BatchOptions o;
    o.skipExisting = true;
    int calls = 0;
    BatchSummary sum = runBatch(items, o,
                                [&](const BatchItem&, const RunControl&) {
                                    ++calls;
                                    return Status::ok();
                                },
                                {});
    QCOMPARE(sum.skipped, 1);
    QCOMPARE(sum.written, 1);
    QCOMPARE(calls, 1);
    // cancel after the first file: the rest are not started
    std::vector<BatchItem> many;
    for (int i = 0; i < 20; ++i) many.push_back({"i", "o", named("", i)});
    RunControl rc;
    o = {};
    o.jobs = 1;
    calls = 0;
    sum = runBatch(
        many, o,
        [&](const BatchItem&, const RunControl& c) {
            ++calls;
            rc.stop.requestStop();
            return c.cancelled() ? Status::cancelled() : Status::ok();
        },
        {}, rc);
    QCOMPARE(calls, 1);
    QCOMPARE(sum.cancelled, 20);
}

QTEST_APPLESS_MAIN(TestBatch)
#include "test_batch.moc"
