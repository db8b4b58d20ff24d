"""The package's behaviour: cells, markers, searches, errors, batches, files.
Invariants are checked over many seeds and sizes (1xN, widths off a
multiple of 64), the searches against plain Python versions of them."""
import collections
import io
import json
import os
import sys
import threading
import time

import pytest

import cavegen

try:
    import numpy as np  # noqa: F811
except ImportError:  # the package works without numpy; some checks need it
    np = None

needs_numpy = pytest.mark.skipif(np is None, reason="numpy is not installed")

SIZES = [(1, 1), (1, 37), (37, 1), (2, 2), (63, 5), (64, 9), (65, 7), (131, 37), (80, 50)]


def rows(m):
    return m.to_ascii().splitlines()


def floor_ok(m, x, y, blocked):
    return 0 <= x < m.width and 0 <= y < m.height and m.cells[y, x] == 0 and (x, y) not in blocked


def bfs(m, starts, moves=None):
    """Distances by a plain breadth-first search: the reference."""
    blocked = set(m.blocked)
    dist = {}
    q = collections.deque()
    for s in starts:
        dist[s] = 0
        q.append(s)
    while q:
        x, y = q.popleft()
        d = dist[(x, y)]
        if moves is not None and d == moves:
            continue
        for nx, ny in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
            if (nx, ny) not in dist and floor_ok(m, nx, ny, blocked):
                dist[(nx, ny)] = d + 1
                q.append((nx, ny))
    return dist


# ------------------------------------------------------------------ cells

def test_cells_are_the_ascii_maps_walls_for_every_size():
    for preset in ("type2", "classic", "type4"):
        for w, h in SIZES:
            for seed in (0, 5, 2**64 - 1):
                m = cavegen.generate(preset, seed=seed, size=(w, h))
                assert (m.width, m.height, m.shape) == (w, h, (h, w))
                mv = m.cells
                assert (mv.format, mv.shape, mv.readonly) == ("B", (h, w), True)
                want = [[1 if c == "#" else 0 for c in r] for r in rows(m)]
                assert mv.tolist() == want, (preset, w, h, seed)


def test_the_cells_are_the_ascii_writers_walls():
    # The cells come from cg_grid_copy; the ASCII writer, another path over the
    # same bits, is the reference: '#' a wall, every other character floor.
    for preset in ("type1", "level", "maze-perfect", "classic"):
        for w, h in SIZES + [(127, 81), (1203, 41)]:
            if preset == "level" and (w < 24 or h < 16):
                continue
            if preset.startswith("maze") and (w < 3 or h < 3 or w % 2 == 0 or h % 2 == 0):
                continue
            for seed in (1, 2**63):
                m = cavegen.generate(preset, seed=seed, size=(w, h))
                want = bytes(c == "#" for r in rows(m) for c in r)
                assert m.cells.tobytes() == want, (preset, w, h, seed)


@needs_numpy
def test_numpy_asarray_is_a_read_only_uint8_view_not_a_copy():
    m = cavegen.generate("level", seed=42, size=(120, 80))
    a = np.asarray(m)
    assert a.dtype == np.uint8 and a.shape == (80, 120)
    assert not a.flags.writeable and not a.flags.owndata
    assert np.shares_memory(a, np.asarray(m))
    assert int(a.sum()) == 120 * 80 - m.stats["floor"]
    with pytest.raises(ValueError):
        a[0, 0] = 0


def test_the_cells_cannot_be_written():
    m = cavegen.generate("type2", seed=1)
    with pytest.raises(TypeError):
        m.cells[0, 0] = 0
    with pytest.raises(TypeError):
        memoryview(m).cast("B")[0] = 1
    with pytest.raises((TypeError, BufferError)):  # readinto asks for a writable buffer
        io.BytesIO(b"x").readinto(m)


# ---------------------------------------------------------------- markers

def test_markers_are_where_the_ascii_map_has_them():
    for seed in range(20):
        m = cavegen.generate("level", seed=seed)
        text = rows(m)
        found = {(x, y): c for y, r in enumerate(text) for x, c in enumerate(r) if c not in "#."}
        assert m.entrance and text[m.entrance[1]][m.entrance[0]] == "<"
        assert m.exit and text[m.exit[1]][m.exit[0]] == ">"
        assert {(p.x, p.y): p.symbol for p in m.points} == \
            {k: v for k, v in found.items() if v == "*"}
        assert {(x, y): s for x, y, s in m.markers} == found
        assert [(x, y) for x, y, _ in m.markers] == sorted(found, key=lambda p: (p[1], p[0]))
        assert m.stats["points"] == len(m.points)


def test_points_of_named_kinds_and_blocked_cells():
    p = cavegen.Pipeline("size 90x50\nfill 45\ngenerations 4 r1=5 r2=2\ngenerations 3 r1=5 r2=-1\n"
                         "keep-largest\nentrance\nexit\npoi kind=chest count=4 spacing=6\n"
                         "poi kind=key count=2 spacing=4 symbol=Q\npoi count=3\n"
                         "occupy count=5 spacing=3\n", "kinds")
    for seed in range(5):
        m = p.run(seed)
        kinds = collections.Counter((pt.symbol, pt.kind) for pt in m.points)
        assert kinds == {("C", "chest"): 4, ("Q", "key"): 2, ("*", None): 3}, kinds
        assert len(m.blocked) == 5
        text = rows(m)
        assert all(text[y][x] == "x" for x, y in m.blocked)
        assert all(m.cells[y, x] == 0 for x, y in m.blocked)
        doc = json.loads(m.to_json())
        assert [(b["x"], b["y"]) for b in doc["blocked"]] == m.blocked
        assert [(d["x"], d["y"], d.get("kind")) for d in doc["points"]] == \
            [(pt.x, pt.y, pt.kind) for pt in m.points]


def test_a_map_without_markers_has_none():
    m = cavegen.generate("type2", seed=3)
    assert (m.entrance, m.exit, m.points, m.blocked, m.markers) == (None, None, [], [], [])
    with pytest.raises(ValueError, match="no entrance"):
        m.path()


# --------------------------------------------------------------- searches

def test_path_is_a_shortest_walk_from_entrance_to_exit():
    for seed in range(40):
        m = cavegen.generate("level", seed=seed)
        path = m.path()
        blocked = set(m.blocked)
        assert path[0] == m.entrance and path[-1] == m.exit
        assert len(path) - 1 == m.stats["path_length"] == bfs(m, [m.entrance])[m.exit]
        for (ax, ay), (bx, by) in zip(path, path[1:]):
            assert abs(ax - bx) + abs(ay - by) == 1
            assert floor_ok(m, bx, by, blocked)
        assert m.path() == path  # the same one every time


def test_path_between_given_cells_and_unreachable_goals():
    m = cavegen.generate("type2", seed=11, size=(65, 37))
    floor = [(x, y) for y in range(m.height) for x in range(m.width) if m.cells[y, x] == 0]
    ref = bfs(m, [floor[0]])
    for goal in floor[:: max(1, len(floor) // 10)]:
        path = m.path(floor[0], goal)
        if goal in ref:
            assert len(path) - 1 == ref[goal]
        else:
            assert path == []
    walls = [(x, y) for y in range(m.height) for x in range(m.width) if m.cells[y, x] == 1]
    with pytest.raises(cavegen.ArgumentError):
        m.path(floor[0], walls[0])
    with pytest.raises(ValueError):
        m.path(floor[0], (m.width, 0))


def test_reach_is_the_breadth_first_distance_within_the_budget():
    U = cavegen.UNREACHED
    for seed in range(12):
        m = cavegen.generate("level", seed=seed, size=(65, 37))
        for moves in (None, 0, 7, 25):
            d = m.reach("entrance", moves)
            assert (d.format, d.shape) == ("I", (m.height, m.width))
            ref = bfs(m, [m.entrance], moves)
            got = {(x, y): v for y, r in enumerate(d.tolist()) for x, v in enumerate(r) if v != U}
            assert got == ref, (seed, moves)
    m = cavegen.generate("type4", seed=3)
    starts = [(x, y) for y in (10, 30) for x in range(m.width) if m.cells[y, x] == 0][:3]
    d = m.reach(starts, moves=30)
    ref = bfs(m, starts, 30)
    assert {(x, y): v for y, r in enumerate(d.tolist()) for x, v in enumerate(r) if v != U} == ref


def test_reach_refuses_a_wall_start():
    m = cavegen.generate("type2", seed=8)
    with pytest.raises(cavegen.ArgumentError):
        m.reach((0, 0))
    with pytest.raises(ValueError, match="no entrance"):
        m.reach()


def test_regions_partition_the_floor():
    for preset, size in (("type1", (131, 37)), ("type3", (80, 50)), ("type2", (1, 37)),
                         ("classic", (65, 7))):
        for seed in range(6):
            m = cavegen.generate(preset, seed=seed, size=size)
            regs = m.regions()
            labels = m.region_labels().tolist()
            assert len(regs) == m.stats["regions"]
            assert sum(r.cells for r in regs) == m.stats["floor"]
            assert max([r.cells for r in regs] or [0]) == m.stats["largest_region"]
            count = collections.Counter(v for r in labels for v in r)
            for i, r in enumerate(regs):
                assert count[i + 1] == r.cells
                fx, fy = r.first
                assert labels[fy][fx] == i + 1
                cells = [(x, y) for y, row in enumerate(labels) for x, v in enumerate(row)
                         if v == i + 1]
                assert min(x for x, _ in cells) == r.x0 and max(x for x, _ in cells) == r.x1
                assert min(y for _, y in cells) == r.y0 and max(y for _, y in cells) == r.y1
                assert len(bfs_floor(m, r.first)) == r.cells
            assert [r.first for r in regs] == sorted((r.first for r in regs),
                                                     key=lambda p: (p[1], p[0]))


def bfs_floor(m, start):
    """The 4-connected floor around start, markers and blocked cells included."""
    seen, q = {start}, collections.deque([start])
    while q:
        x, y = q.popleft()
        for n in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
            if n not in seen and 0 <= n[0] < m.width and 0 <= n[1] < m.height \
                    and m.cells[n[1], n[0]] == 0:
                seen.add(n)
                q.append(n)
    return seen


# ----------------------------------------------------------------- errors

def test_preset_errors_carry_line_and_column():
    with pytest.raises(cavegen.PresetError) as e:
        cavegen.Pipeline("# mine\nfill 45\ngenerations 4 r1=5 r9=2\n", "mine")
    assert (e.value.line, e.value.column) == (3, 20)
    assert str(e.value).startswith("mine:3:20: ")
    assert e.value.message in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, cavegen.Error)
    with pytest.raises(cavegen.PresetError) as e:
        cavegen.Pipeline("fill 45\n  smoth 2")
    assert (e.value.line, e.value.column) == (2, 3)
    assert str(e.value).startswith("<preset>:2:3: ")


def test_bad_arguments():
    with pytest.raises(cavegen.ArgumentError, match="did you mean 'level'"):
        cavegen.generate("levle")
    with pytest.raises(cavegen.ArgumentError, match="poi.cuont"):
        cavegen.generate("level", overrides={"poi.cuont": 4})
    with pytest.raises(cavegen.ArgumentError, match="24x16"):
        cavegen.generate("level", seed=0, size=(23, 16))
    for seed in (-1, 2**64):
        with pytest.raises(ValueError):
            cavegen.generate("type2", seed=seed)
    for size in ((0, 5), (5, cavegen.MAX_DIM + 1), (5,), "80x50"):
        with pytest.raises((ValueError, TypeError)):
            cavegen.generate("type2", seed=1, size=size)
    with pytest.raises(cavegen.ArgumentError):
        cavegen.generate("type2", seed=1).encode("gif")


def test_a_requirement_that_cannot_be_met_raises_after_the_attempts():
    p = cavegen.Pipeline("fill 100\nentrance\n")
    with pytest.raises(cavegen.RequirementError, match="2 attempts"):
        p.run(1, max_attempts=2)


def test_a_drawn_seed_is_recorded_and_reproduces_the_map():
    m = cavegen.generate("type2")
    assert m.seed is not None and m.stats["seed"] == m.seed
    assert cavegen.generate("type2", seed=m.seed).to_ascii() == m.to_ascii()
    fixed = cavegen.Pipeline("size 10x4\nsmooth 1\n")
    assert not fixed.uses_seed
    m = fixed.run()
    assert m.seed is None and m.stats["seed"] is None and json.loads(m.to_json())["seed"] is None


def test_attempts_and_run_seed():
    seen = 0
    for seed in range(40):
        m = cavegen.generate("level", seed=seed)
        assert m.attempts >= 1 and m.stats["attempts"] == m.attempts
        if m.attempts > 1:
            seen += 1
            assert m.run_seed != m.seed
            again = cavegen.generate("level", seed=m.run_seed)
            assert again.attempts == 1 and again.to_ascii() == m.to_ascii()
    assert seen > 0  # level needs a second attempt for some seeds


def test_pipeline_properties():
    p = cavegen.preset("level", {"poi.count": 3})
    assert p.name == "level" and "poi count=3" in p.text and p.text.endswith("\n")
    assert p.min_size == (24, 16) and p.default_size == (80, 50) and p.uses_seed
    assert p.steps > 5
    q = cavegen.Pipeline("size 30x20\nfill 45")
    assert q.name is None and q.default_size == (30, 20) and q.text == "size 30x20\nfill 45\n"
    assert q.run(1).shape == (20, 30)
    with pytest.raises(TypeError):  # runs read it without the GIL: it never changes
        q.__init__("fill 40")


# ---------------------------------------------------------------- batches

def test_batch_maps_are_the_single_maps_in_order_for_any_jobs():
    one = [m.to_ascii() for m in cavegen.batch("classic", seed=50, count=70, size=(65, 7), jobs=1)]
    many = list(cavegen.batch("classic", seed=50, count=70, size=(65, 7), jobs=3))
    assert [m.to_ascii() for m in many] == one
    for i in (0, 33, 69):
        assert cavegen.generate("classic", seed=50 + i, size=(65, 7)).to_ascii() == one[i]


def test_batch_maps_do_not_depend_on_jobs_over_many_maps():
    # Counts across the chunks the threads claim and the ring they fill,
    # sizes odd and of one row or column; each map against jobs=1's.
    def maps(count, size, jobs, stats=False):
        return [(m.index, m.seed, bytes(memoryview(m)), m.to_ascii(), m.stats if stats else None)
                for m in cavegen.batch("type2", seed=count, count=count, size=size, jobs=jobs,
                                       stats=stats)]
    for count, size in ((1, (80, 50)), (7, (1, 9)), (64, (9, 1)), (333, (80, 50)),
                        (1000, (65, 7)), (150, (200, 129))):
        want = maps(count, size, 1)
        assert [w[0] for w in want] == list(range(count))
        for jobs in (0, 2, 3, 5):
            assert maps(count, size, jobs) == want, (count, size, jobs)
    assert maps(200, (70, 40), 3, stats=True) == maps(200, (70, 40), 1, stats=True)


def _threads():
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None


def test_a_batch_ends_its_threads_when_done_or_dropped():
    before = _threads()
    got = 0
    for m in cavegen.batch("type2", seed=9, count=500, size=(40, 30), jobs=3):
        got += 1
    assert got == 500 and _threads() == before  # exhausted: threads joined
    for stop in (0, 1, 50, 499):
        it = cavegen.batch("type2", seed=9, count=5000, size=(40, 30), jobs=3)
        kept = []
        for m in it:
            if len(kept) == stop:
                break
            kept.append(m)
        del it  # dropped part way: its threads stop, the maps handed out stay
        assert _threads() == before
        assert [m.index for m in kept] == list(range(stop))
        for m in kept[::97]:
            assert m.to_ascii() == cavegen.generate("type2", seed=9 + m.index,
                                                    size=(40, 30)).to_ascii()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")
def test_a_batch_goes_on_after_fork_without_its_threads():
    # A child of fork() has none of the batch's threads: it makes the rest
    # of the maps itself, the same maps.
    it = cavegen.batch("type2", seed=1, count=3000, size=(40, 30), jobs=3)
    assert next(it).index == 0
    pid = os.fork()
    if pid == 0:
        code = 2
        try:
            got = [(m.index, m.to_ascii() if m.index % 250 == 0 else None) for m in it]
            ok = [g[0] for g in got] == list(range(1, 3000)) and all(
                t is None or t == cavegen.generate("type2", seed=1 + i, size=(40, 30)).to_ascii()
                for i, t in got)
            code = 0 if ok else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the child waits for ever")
        time.sleep(0.02)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert [m.index for m in it] == list(range(1, 3000))  # the parent's goes on too


def test_a_batch_of_huge_maps_splits_each_in_stripes():
    # 4M cells and more: one map at a time, its passes on the threads.
    maps = list(cavegen.batch("type2", seed=3, count=2, size=(2100, 2000), jobs=2))
    for m in maps:
        assert m.to_ascii() == cavegen.generate("type2", seed=m.seed, size=(2100, 2000)).to_ascii()


def test_batch_stats_equal_the_maps_own():
    maps = list(cavegen.batch("level", seed=7, count=20, stats=True, jobs=2))
    for m in maps:
        assert m.stats == cavegen.generate("level", seed=m.seed).stats


def test_batch_stops_at_a_failing_map_or_skips_it():
    p = cavegen.Pipeline("size 30x20\nfill 45\ngenerations 3 r1=5 r2=2\nentrance\n"
                         "require open>=40%\n")
    want = []
    for s in range(30):
        try:
            assert p.run(s, max_attempts=1).index is None  # not a batch's map
            want.append(s)
        except cavegen.RequirementError:
            pass
    assert 0 < len(want) < 30
    got = [m.index for m in cavegen.batch(p, seed=0, count=30, max_attempts=1, keep_going=True)]
    assert got == want
    it = cavegen.batch(p, seed=0, count=30, max_attempts=1)
    first_bad = min(set(range(30)) - set(want))
    seen = []
    with pytest.raises(cavegen.RequirementError, match="map %d " % first_bad):
        for m in it:
            seen.append(m.index)
    assert seen == want[:len(seen)] and all(i < first_bad for i in seen)
    assert list(it) == []


def test_generating_releases_the_gil():
    # While generate() is in C it must not hold the GIL: this thread then
    # goes on counting. No clock: with the switch interval made very long,
    # a thread holding the GIL gives it up only when it blocks, so held
    # through the call, the count could not move between the worker's two
    # reads around it. This thread sleeps (gives the GIL up) every 1,000
    # counts, for the worker to start and to come back from C.
    count = [0]
    moved = {}

    def work():
        before = count[0]
        cavegen.generate("level", seed=1, size=(2500, 2500))
        moved["by"] = count[0] - before

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        while t.is_alive():
            count[0] += 1
            if count[0] % 1000 == 0:
                time.sleep(0.0001)
        t.join()
    finally:
        sys.setswitchinterval(interval)
    assert moved["by"] > 0, moved


# ------------------------------------------------------------------ files

def test_save_writes_the_format_of_the_extension(tmp_path):
    m = cavegen.generate("level", seed=4)
    for name, fmt in (("a.txt", "ascii"), ("a.json", "json"), ("a.pbm", "pbm"),
                      ("a.png", "png"), ("noext", "ascii")):
        path = tmp_path / name
        m.save(path)
        assert path.read_bytes() == m.encode(fmt), name
    m.save(tmp_path / "l.tmx")
    assert (tmp_path / "cavegen-tiles.png").exists()
    m.save(str(tmp_path / "forced.txt"), format="json")
    assert (tmp_path / "forced.txt").read_text() == m.to_json()
    with pytest.raises(cavegen.ArgumentError):
        m.save(tmp_path / "a.gif")
    with pytest.raises(OSError):
        m.save(tmp_path / "missing" / "a.txt")
    assert m.encode("png", scale=1) != m.encode("png", scale=2)


def test_formats_lists_the_librarys_table():
    names = [f["name"] for f in cavegen.formats()]
    assert names[:3] == ["ascii", "png", "json"] and "ansi" in names
