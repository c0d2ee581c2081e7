"""The worker's task cache (python/drtriton/verifier/task_cache.py, docs/verifier.md "The task
cache"): candidates of one task judged by a worker that keeps the task's work get the verdicts
of a worker without it, apart from timings; a candidate that writes what it can reach does not
change how the next candidates of its task are judged; and the cache stays bounded."""
import os

import pytest
import torch

from drtriton.verifier import client, task_cache

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SUITE = client.load_suite(os.path.join(ROOT, "tests", "eval", "candidates"))
BY_NAME = {c.name: c for c in SUITE}
OFF = {"DRTRITON_TASK_CACHE_MB": "0"}
# The cases that reach the checked sets, by task: the first of a task (and mode, and seed
# where a case pins one) makes its entry, the others use it.


def _entry_of(case):
    return case.task, bool(case.options.get("eval_mode")), case.options.get("seed", 1234)


COMPARED = sorted((c for c in SUITE if not c.runtime_only
                   and c.name not in ("fault_prints_megabytes", "honest_relu_scale_big")  # slow
                   and c.expect.outcome in ("passed", "rejected")
                   and c.expect.stage in (None, "correct", "timed")),
                  key=lambda c: _entry_of(c))


def _worker(tmp_path_factory, name, env):
    w = client.WorkerClient("cpu", scratch=str(tmp_path_factory.mktemp(name)), extra_env=env)
    w.start()
    return w


@pytest.fixture(scope="module")
def cold(tmp_path_factory):
    w = _worker(tmp_path_factory, "cold", OFF)
    yield w
    w.close()


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    w = _worker(tmp_path_factory, "warm", {})
    yield w
    w.close()


def judge(worker, case, candidate=None, **options):
    task, source = case.sources()
    options = {"compile": False, "seed": 1234, **case.options, **options}
    result = worker.request(task, candidate or source, options, timeout=300)
    assert result.outcome == "verdict", (case.name, result.outcome, result.progress)
    return result.verdict


def judgement(v):
    """A verdict without what is measured (timings, GPU memory) or drawn at random per
    request (which timed runs are checked, on which values)."""
    v = {k: x for k, x in v.items() if k not in (
        "timing_ms", "speedup_eager", "speedup_compile", "own_kernel_share", "seconds",
        "reference_timing", "worker_wall_s")}
    v["reward"] = {"correct": v["reward"]["correct"]}
    v["flags"] = sorted(f for f in v["flags"] if f not in (
        "reference_timing_reused", "reference_timing_mismatch", "speedup_over_10x", "timing_noisy",
        "static_skipped_for_test", "static_checks_skipped"))
    v["checks"] = {k: x for k, x in v["checks"].items() if k not in ("task_cache", "timed_runs_checked", "gpu_memory",
                                                                  "timing_noisy")}
    v["err"] = [e for e in v["err"] if e["dist"] != "fresh values"]
    return v


def test_verdicts_with_and_without_the_task_cache_are_the_same(cold, warm):
    assert len(COMPARED) >= 12
    entries = len({_entry_of(c) for c in COMPARED})
    uses = []
    for case in COMPARED:
        without, with_cache = judge(cold, case), judge(warm, case)
        assert without["checks"]["task_cache"]["entry"] == "off"
        uses.append(with_cache["checks"]["task_cache"]["entry"])
        assert judgement(with_cache) == judgement(without), case.name
    assert uses.count("new") == entries and uses.count("hit") == len(COMPARED) - entries


def test_sets_drawn_again_at_each_use_judge_as_kept_ones(tmp_path_factory, cold):
    """A GPU-sized set is not kept but drawn again where it is used: a worker that keeps no
    set (and no task cache) gives the verdicts of one that keeps them, varied sizes included
    (a draw again while the task's sizes are varied is refused as the candidate's doing)."""
    redrawn = _worker(tmp_path_factory, "redrawn", {**OFF, "DRTRITON_INPUT_KEEP_MB": "0"})
    try:
        cases = [c for c in COMPARED if c.expect.outcome == "passed"][:4]
        assert len(cases) == 4
        for case in cases:
            kept, drawn = judge(cold, case), judge(redrawn, case)
            assert drawn["passed"], (case.name, drawn["reason"])
            assert drawn["checks"]["shape_variation"], case.name  # the sizes did vary
            assert judgement(drawn) == judgement(kept), case.name
    finally:
        redrawn.close()


def test_the_reference_timing_is_measured_once_per_task(warm):
    case = BY_NAME["honest_linear_gelu"]
    first, second = judge(warm, case, seed=77), judge(warm, case, seed=77)
    assert "reference_timing_reused" not in first["flags"]
    assert "reference_timing_reused" in second["flags"]
    assert second["timing_ms"]["eager"] == first["timing_ms"]["eager"]
    # asking for torch.compile's time too needs another measurement; then it is kept
    third, fourth = judge(warm, case, seed=77, compile=True), judge(warm, case, seed=77, compile=True)
    assert "reference_timing_reused" not in third["flags"] and third["timing_ms"]["compile"]
    assert fourth["timing_ms"]["compile"] == third["timing_ms"]["compile"]


def test_requests_without_a_seed_share_the_entrys_seed(cold, warm):
    case = BY_NAME["honest_relu_scale"]
    seeds = [judge(warm, case, seed=None)["checks"]["seeds"] for _ in range(2)]
    assert seeds[0] == seeds[1]
    seeds = [judge(cold, case, seed=None)["checks"]["seeds"] for _ in range(2)]
    assert seeds[0] != seeds[1]


def test_a_task_too_big_for_the_cache_keeps_only_its_timing(tmp_path_factory, cold):
    small = _worker(tmp_path_factory, "small", {"DRTRITON_TASK_CACHE_MB": "0.001"})  # 1 KB
    try:
        case = BY_NAME["honest_relu_scale"]
        verdicts = [judge(small, case) for _ in range(2)]
        assert [v["checks"]["task_cache"] for v in verdicts] == [
            {"entry": "new", "sets": False}, {"entry": "hit", "sets": False}]
        assert "reference_timing_reused" in verdicts[1]["flags"]
        assert judgement(verdicts[1]) == judgement(judge(cold, case))
    finally:
        small.close()


RETURNS_ONES = BY_NAME["cheat_returns_zeros"].sources()[1].replace(
    "tl.zeros((BLOCK,), dtype=tl.float32)", "tl.zeros((BLOCK,), dtype=tl.float32) + 1.0")


def test_a_candidate_cannot_change_what_the_next_ones_are_judged_against(tmp_path_factory, cold):
    """Candidate A writes its input in place and tries to fill every tensor it can find with
    ones (the cached truths among them); after it, in the same worker, an honest candidate is
    judged as a worker without the cache judges it, and one returning ones still fails."""
    worker = _worker(tmp_path_factory, "poison", client.RUNTIME_ENV)  # A runs past the static checks
    try:
        honest = BY_NAME["honest_relu_scale"]
        first = judge(worker, honest)  # makes the entry
        poison = judge(worker, BY_NAME["cheat_poison_task_cache"])
        assert not poison["passed"] and "modified its input" in poison["reason"]
        assert "sandbox_refused" in poison["flags"]  # gc.get_objects
        after = judge(worker, honest)
        assert first["checks"]["task_cache"]["entry"] == "new"
        assert after["checks"]["task_cache"] == {"entry": "hit", "sets": True}
        assert after["passed"] and judgement(after) == judgement(judge(cold, honest))
        ones = judge(worker, honest, candidate=RETURNS_ONES)
        assert not ones["passed"] and "wrong output" in ones["reason"]
    finally:
        worker.close()


def test_an_entry_whose_tensors_change_is_found_out():
    entry = task_cache.Entry("k", 1, True, None, "state")
    entry.sets = [[torch.ones(4)]]
    entry.references = [task_cache.SetReference(torch.ones(2), torch.ones(2, dtype=torch.float64),
                                                {}, {}, False, None)]
    entry.seal()
    assert entry.intact()
    entry.references[0].truth[1] = 0.5
    assert not entry.intact()


def test_the_cache_is_bounded_and_draws_a_fresh_seed_in_time():
    cache = task_cache.TaskCache(max_tasks=2, max_bytes=1000)
    for key in "abc":
        cache.put(task_cache.Entry(key, 1, True, None, ""))
    assert list(cache.entries) == ["b", "c"]  # least recently used out first
    big = task_cache.Entry("d", 1, True, None, "")
    big.sets = [torch.zeros(200)]  # 800 bytes: with it, the others' tensors do not fit
    cache.put(task_cache.Entry("e", 1, True, None, ""))
    cache.entries["e"].sets = [torch.zeros(100)]
    cache.entries["e"].timing = {"eager": "measured"}
    cache.put(big)
    assert list(cache.entries) == ["e", "d"]
    # e gave up its tensors and kept its timing; d, the newest, keeps everything
    assert cache.entries["e"].sets is None and cache.entries["e"].timing == {"eager": "measured"}
    assert cache.entries["e"].intact() and cache.entries["d"].sets is not None
    drawn, given = cache.entries["d"], task_cache.Entry("f", 7, False, None, "")
    cache.put(given)
    assert list(cache.entries) == ["d", "f"]
    drawn.uses = given.uses = task_cache.REDRAW_AFTER
    assert cache.get("d") is None  # its own seed has judged enough candidates
    assert cache.get("f") is given  # a seed the requests give is theirs to keep


def test_input_sets_drawn_again_must_match_their_first_draw():
    """Sets too large to keep are drawn again at each use; a draw that differs from the first
    (a candidate changed the task's sizes in between) is refused, not judged."""
    import types

    from drtriton.verifier import inputs as inputs_mod

    task = types.ModuleType("task_for_input_sets")
    task.n = 8

    def get_inputs():
        return [torch.randn(task.n, 4)]
    task.get_inputs = get_inputs
    seeds = list(range(len(inputs_mod.DISTRIBUTIONS)))
    old = inputs_mod.InputSets.KEEP_BYTES
    inputs_mod.InputSets.KEEP_BYTES = 0  # keep nothing: every use draws again
    try:
        sets = inputs_mod.InputSets(task, seeds, torch.device("cpu"))
        first = sets[3]
        assert torch.equal(first[0], sets[3][0])  # same seed, same device: the same values
        assert not torch.equal(sets[1][0], sets[2][0])
        task.n = 9
        with pytest.raises(inputs_mod.InputsChanged, match="input set 3"):
            sets[3]
    finally:
        inputs_mod.InputSets.KEEP_BYTES = old


def test_a_redraw_asks_first_whether_its_tools_were_changed():
    """InputSets calls before_redraw before drawing a set again (the judge checks there that
    torch's functions, the task's get_inputs and its sizes are as at load)."""
    import types

    from drtriton.verifier import inputs as inputs_mod

    task = types.ModuleType("task_for_input_sets")
    task.get_inputs = lambda: [torch.randn(8, 4)]
    asked = []

    def before_redraw():
        asked.append(True)
        raise inputs_mod.InputsChanged("candidate changed torch.randn at run time")
    old = inputs_mod.InputSets.KEEP_BYTES
    inputs_mod.InputSets.KEEP_BYTES = 0
    try:
        sets = inputs_mod.InputSets(task, list(range(len(inputs_mod.DISTRIBUTIONS))), torch.device("cpu"),
                                    before_redraw=before_redraw)
        assert not asked  # the first draws come before any candidate code
        with pytest.raises(inputs_mod.InputsChanged, match="torch.randn"):
            sets[2]
        assert asked
    finally:
        inputs_mod.InputSets.KEEP_BYTES = old
