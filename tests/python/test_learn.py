"""The supervised warm-up path (python/drtriton/learn) on a CPU, end to end: pairs made by the
compiler, the prompt format, the tokenizer, a tiny model's training, exact resume,
data-parallel training on two gloo processes, checkpoints that `transformers` loads,
sampling, and the evaluation through the real verifier (Triton's interpreter).

The pairs come from `drtriton synth` and `drtriton convert --no-verify` (a few programs),
cached in pytest's cache under the binary's hash, since converting costs seconds a program.
"""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
import torch

pytest.importorskip("transformers")
from safetensors.torch import load_file  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from drtriton.learn import data, evaluate, model as model_lib, sft  # noqa: E402
from drtriton.learn.prompt import (EOS_TOKEN, build_prompt, format_answer, parse_answer,  # noqa: E402
                                   read_answer)
from drtriton.learn.sample import ModelPolicy  # noqa: E402
from drtriton.learn.tokenizer import pair_texts, read_pairs, train_tokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
PROGRAMS = 4

# Small enough for seconds a step on a busy 2-core CPU: the answers are cut at 448 tokens.
TINY = dict(model="tiny", vocab_size=512, max_len=448, truncate=True, batch_size=1,
            warmup_steps=0, log_every=1, eval_every=2, save_every=100, lr=3e-3, heldout=0.25)

WRONG_CANDIDATE = """import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        return x
"""


def make_pairs(cache):
    """pairs.jsonl in the schema of `drtriton pairs`, from the first PROGRAMS programs of
    a synth run (suite.jsonl beside it) and the compiler's solutions. Made in a folder of
    this process's own and moved into `cache` when done, so that test processes running side
    by side (pytest -n) never write one file together."""
    folder = pathlib.Path(tempfile.mkdtemp(dir=cache))
    subprocess.run([BIN, "synth", "--count", "20", "--difficulty", "1:2", "--seed", "5",
                    "--out", str(folder / "suite.jsonl")], check=True, capture_output=True)
    with open(folder / "suite.jsonl") as f:
        programs = [json.loads(line) for line in f][:PROGRAMS]
    converts = []
    for p in programs:
        (folder / f"{p['id']}.py").write_text(p["pytorch"])
        converts.append(subprocess.Popen(
            [BIN, "convert", str(folder / f"{p['id']}.py"), "-o",
             str(folder / f"{p['id']}_triton.py"), "--no-verify"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    for p, proc in zip(programs, converts):
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"drtriton convert {p['id']}: {err}"
    with open(folder / "pairs.jsonl.tmp", "w") as f:
        for p in programs:
            f.write(json.dumps({
                "id": p["id"], "seed": p["seed"], "difficulty": p["difficulty"], "ops": p["ops"],
                "program": p["pytorch"], "solution": (folder / f"{p['id']}_triton.py").read_text(),
                "variant": {}, "verdict": {"passed": True}}) + "\n")
    os.replace(folder / "suite.jsonl", cache / "suite.jsonl")
    os.replace(folder / "pairs.jsonl.tmp", cache / "pairs.jsonl")  # last: it says "done"
    shutil.rmtree(folder)


@pytest.fixture(scope="session")
def pairs_file(request):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    with open(BIN, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    folder = request.config.cache.mkdir(f"learn_pairs_{key}")
    if not (folder / "pairs.jsonl").exists():
        make_pairs(folder)
    return str(folder / "pairs.jsonl")


@pytest.fixture(scope="session")
def pairs(pairs_file):
    return read_pairs(pairs_file)


@pytest.fixture(scope="session")
def trained(pairs_file, tmp_path_factory):
    """A tiny model trained 4 steps (with dropout, so resuming must restore the RNG)."""
    out = str(tmp_path_factory.mktemp("sft") / "ckpt")
    result = sft.train(sft.Config(data=pairs_file, out=out, max_steps=4, grad_accum=2,
                                  dropout=0.1, **TINY))
    assert result == {"step": 4, "stopped": "max_steps"}
    return out


def metrics(out):
    with open(os.path.join(out, sft.METRICS_FILE)) as f:
        return [json.loads(line) for line in f]


def losses(out, key="loss"):
    return [(r["step"], r[key]) for r in metrics(out) if key in r]


def test_prompt_answer_round_trip(pairs):
    solution = pairs[0]["solution"]
    prompt = build_prompt(pairs[0]["program"])
    assert pairs[0]["program"] in prompt and "ModelNew" in prompt
    assert parse_answer(prompt) is None  # the program is in a block, but it defines Model
    answer = format_answer(solution)
    assert answer.endswith(EOS_TOKEN) and answer.count("```") == 2
    # The compiler's header (its leading comment lines) is not part of what is learned.
    assert solution.startswith("# Generated by drtriton convert")
    body = solution[solution.index("\nimport torch") + 1:]
    assert parse_answer(answer) == body.rstrip("\n") + "\n"
    chatty = f"Sure.\n```python\nimport torch\n```\nNow:\n{answer}\n```python\nclass X: pass\n```"
    assert parse_answer(chatty) == body.rstrip("\n") + "\n"


@pytest.mark.parametrize("completion", [
    "",
    "class ModelNew(nn.Module):\n    pass\n",  # not fenced
    "```python\nclass ModelNew(nn.Module):\n    pass\n",  # never closed
    "```python\nclass Model(nn.Module):\n    pass\n```\n",  # no ModelNew
    "```python\n# class ModelNew is below\n```\n",  # only mentioned
])
def test_parse_answer_refuses(completion):
    assert parse_answer(completion) is None


@pytest.mark.parametrize("completion, why", [
    ("I cannot do that.", "no fenced"),
    ("```python\nclass Model(nn.Module):\n    pass\n```\n", "no block defines class ModelNew"),
    ("```python\nclass ModelNew:\n    pass\n```\nor\n```python\nclass ModelNew:\n    x = 1\n```\n",
     "2 blocks define class ModelNew"),
])
def test_read_answer_says_why(completion, why):
    answer, reason = read_answer(completion)
    assert answer is None and why in reason


def test_tokenizer_round_trips_code(pairs, tmp_path):
    train_tokenizer(pair_texts(pairs), vocab_size=512).save_pretrained(tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path)
    assert len(tokenizer) <= 512
    assert len({tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.pad_token_id}) == 3
    tricky = "def f(x):\n\tif x:   \n\n\n        return 'é∑🙂'  # \r\n    \n"
    for text in [*pair_texts(pairs), tricky]:
        ids = tokenizer(text).input_ids
        assert ids[0] == tokenizer.bos_token_id
        plain = text.replace(EOS_TOKEN, "")
        assert tokenizer.decode(ids, skip_special_tokens=True) == plain
    answer_ids = tokenizer(format_answer("x = 1"), add_special_tokens=False).input_ids
    eos = tokenizer.eos_token_id
    assert answer_ids.count(eos) == 1 and answer_ids[-1] == eos


def test_presets_fit_their_budgets(pairs, tmp_path):
    tokenizer = train_tokenizer(pair_texts(pairs), vocab_size=512)
    small = model_lib.build_small(tokenizer, "small", vocab_size=4096)  # the default vocabulary
    small.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    size = sum(os.path.getsize(tmp_path / name) for name in os.listdir(tmp_path))
    params = sum(p.numel() for p in small.parameters())
    print(f"\nsmall: {params:,} parameters, checkpoint {size / 1e6:.1f} MB")
    assert size <= 48e6
    tiny = model_lib.build_small(tokenizer, "tiny", vocab_size=4096)
    assert 1e5 <= sum(p.numel() for p in tiny.parameters()) < 1e6


def test_loss_only_on_answer_tokens(pairs, tmp_path):
    train_tokenizer(pair_texts(pairs), vocab_size=512).save_pretrained(tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path)
    examples, too_long = data.encode_pairs(pairs[:2], tokenizer, max_len=100_000, truncate=False)
    assert too_long == 0 and len(examples) == 2
    batch = data.collate(examples, tokenizer.pad_token_id, "cpu")
    for row, e in enumerate(examples):
        labels = batch["labels"][row]
        answer = labels[e.prompt_tokens:len(e.input_ids)].tolist()
        assert (labels[:e.prompt_tokens] == data.IGNORE_INDEX).all()
        assert (labels[len(e.input_ids):] == data.IGNORE_INDEX).all()
        assert tokenizer.decode(answer) == format_answer(pairs[row]["solution"])
        assert batch["attention_mask"][row].sum() == len(e.input_ids)
    shortest = min(len(e.input_ids) for e in examples)
    skipped, too_long = data.encode_pairs(pairs[:2], tokenizer, shortest - 1, truncate=False)
    assert (len(skipped), too_long) == (0, 2)
    cut, too_long = data.encode_pairs(pairs[:2], tokenizer, shortest - 1, truncate=True)
    assert too_long == 2 and [len(e.input_ids) for e in cut] == [shortest - 1] * 2


def test_data_order_shards_like_accumulation():
    single = data.DataOrder(5, seed=3)
    split = [data.DataOrder(5, seed=3) for _ in range(2)]
    for _ in range(4):  # crosses epochs
        accumulated = single.next_step(batch=2, accum=2, world=1, rank=0)
        per_rank = [order.next_step(batch=2, accum=1, world=2, rank=r)
                    for r, order in enumerate(split)]
        assert accumulated == [per_rank[0][0], per_rank[1][0]]
    resumed = data.DataOrder(5, seed=3, cursor=single.cursor)
    assert resumed.next_step(3, 1, 1, 0) == single.next_step(3, 1, 1, 0)
    assert sorted(data.DataOrder(5, seed=3).next_step(5, 1, 1, 0)[0]) == list(range(5))


def test_loss_decreases_on_a_repeated_batch(pairs, tmp_path):
    two = tmp_path / "two.jsonl"
    two.write_text("".join(json.dumps(p) + "\n" for p in pairs[:2]))
    out = str(tmp_path / "ckpt")
    sft.train(sft.Config(data=str(two), out=out, max_steps=12, **{
        **TINY, "batch_size": 2, "heldout": 0.0, "lr": 1e-2, "min_lr_rate": 1.0}))
    curve = [loss for _, loss in losses(out)]
    assert len(curve) == 12
    assert curve[-1] < 0.6 * curve[0], curve
    assert os.path.getsize(os.path.join(out, "loss.png")) > 1000


def test_resume_is_exact(pairs_file, trained, tmp_path):
    out = str(tmp_path / "ckpt")
    config = dict(data=pairs_file, out=out, max_steps=4, grad_accum=2, dropout=0.1, **TINY)
    assert sft.train(sft.Config(max_minutes=1e-9, **config)) == {"step": 1,
                                                                 "stopped": "max_minutes"}
    assert [step for step, _ in losses(out)] == [1]
    with pytest.raises(SystemExit):  # a second fresh run into a checkpoint is refused
        sft.train(sft.Config(**config))
    sft.train(sft.Config(**config), resume=True)
    assert losses(out) == losses(trained)  # bit-identical, not close
    assert losses(out, "eval_loss") == losses(trained, "eval_loss")
    resumed = load_file(os.path.join(out, "model.safetensors"))
    uninterrupted = load_file(os.path.join(trained, "model.safetensors"))
    assert all(torch.equal(resumed[k], uninterrupted[k]) for k in uninterrupted)


def test_best_holds_the_lowest_held_out_loss(trained):
    evals = losses(trained, "eval_loss")
    step, loss = min(evals, key=lambda e: e[1])
    with open(os.path.join(trained, "best", "best.json")) as f:
        assert json.load(f) == {"step": step, "eval_loss": loss}
    best = load_file(os.path.join(trained, "best", "model.safetensors"))
    last = load_file(os.path.join(trained, "model.safetensors"))
    assert best.keys() == last.keys()
    assert any(not torch.equal(best[k], last[k]) for k in last) == (step != evals[-1][0])


def test_command_line_overrides(pairs_file, tmp_path):
    config, resume = sft.parse_args(["--data", pairs_file, "--out", str(tmp_path),
                                     "--lr", "1e-3", "--no-bf16", "--max_steps", "7"])
    assert (config.lr, config.bf16, config.max_steps, resume) == (1e-3, False, 7, False)
    assert config.batch_size == sft.Config().batch_size
    (tmp_path / sft.CONFIG_FILE).write_text(json.dumps({**vars(config), "seed": 9}))
    config, resume = sft.parse_args(["--out", str(tmp_path), "--resume", "--max_minutes", "5"])
    assert (config.seed, config.max_minutes, config.lr, resume) == (9, 5.0, 1e-3, True)


def test_checkpoint_loads_and_samples(trained, pairs):
    model = AutoModelForCausalLM.from_pretrained(trained)
    tokenizer = AutoTokenizer.from_pretrained(trained)
    assert model.config.model_type == "llama" and model.dtype == torch.float32
    assert model.get_input_embeddings().num_embeddings == len(tokenizer)
    policy = ModelPolicy(trained, "cpu")
    programs = [p["program"] for p in pairs[:2]]
    sampled = policy.generate(programs, samples=3, temperature=1.0, top_p=0.9,
                              max_new_tokens=8, batch_size=4, seed=0)
    assert [len(s) for s in sampled] == [3, 3]
    assert all(isinstance(c, str) for s in sampled for c in s)
    assert policy.generate(programs, 3, 1.0, 0.9, 8, batch_size=4, seed=0) == sampled
    greedy = policy.generate(programs, samples=2, temperature=0, max_new_tokens=8)
    assert [len(set(s)) for s in greedy] == [1, 1]
    # A static KV cache (and prompts padded to a multiple of 256) decodes the same tokens.
    static = ModelPolicy(trained, "cpu", kv_cache="static")
    assert static.generate(programs, samples=2, temperature=0, max_new_tokens=8) == greedy


@pytest.mark.filterwarnings("ignore::FutureWarning")  # peft calls a deprecated transformers API
def test_lora_on_a_directory_model(trained, pairs_file, tmp_path):
    out = str(tmp_path / "lora")
    sft.train(sft.Config(**{**TINY, "model": trained, "lora_r": 4}, data=pairs_file, out=out,
                         max_steps=2))
    assert os.path.exists(os.path.join(out, "adapter_model.safetensors"))
    assert not os.path.exists(os.path.join(out, "model.safetensors"))  # adapters only
    adapted = AutoModelForCausalLM.from_pretrained(out)
    names = [n for n, _ in adapted.named_parameters()]
    assert any("lora_A" in n for n in names)
    base = load_file(os.path.join(trained, "model.safetensors"))
    assert torch.equal(adapted.state_dict()["model.norm.weight"], base["model.norm.weight"])


@pytest.mark.parametrize("sharding", ["ddp", "fsdp"])
def test_two_processes_match_accumulation(sharding, pairs_file, tmp_path):
    """Two gloo processes of one example each = one process accumulating both."""
    config = dict(TINY, data=pairs_file, max_steps=2, eval_every=1, fsdp=sharding == "fsdp")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), OMP_NUM_THREADS="1")
    flags = [f"--{k}={v}" for k, v in config.items() if not isinstance(v, bool)]
    flags += [f"--{k}" for k, v in config.items() if v is True]
    parallel_out = str(tmp_path / sharding)
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                          "-m", "drtriton.learn.sft", *flags, "--out", parallel_out],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "2 process(es) on cpu" in run.stdout
    single_out = str(tmp_path / "single")
    sft.train(sft.Config(out=single_out, **{**config, "grad_accum": 2, "fsdp": False}))
    for key in ("loss", "eval_loss"):
        parallel, single = losses(parallel_out, key), losses(single_out, key)
        assert [s for s, _ in parallel] == [s for s, _ in single] == [1, 2]
        assert all(abs(a - b) < 1e-5 * abs(b) for (_, a), (_, b) in zip(parallel, single)), (
            parallel, single)
    parallel_weights = load_file(os.path.join(parallel_out, "model.safetensors"))
    single_weights = load_file(os.path.join(single_out, "model.safetensors"))
    assert parallel_weights.keys() == single_weights.keys()  # a tied weight saved once
    assert all(torch.allclose(parallel_weights[k], single_weights[k], atol=1e-6)
               for k in single_weights)
    norm = parallel_weights["model.norm.weight"]
    assert not torch.equal(norm, torch.ones_like(norm))  # it did train


def test_evaluate_untrained_model_is_all_unparsed(trained, pairs_file, capsys, tmp_path):
    suite = os.path.join(os.path.dirname(pairs_file), "suite.jsonl")
    report_path = tmp_path / "report.json"
    evaluate.main(["--ckpt", trained, "--suite", suite, "--suite", f"again={suite}",
                   "--limit", "2", "--samples", "2",
                   "--max-new-tokens", "8", "--binary", BIN, "--device", "cpu",
                   "--out", str(report_path)])
    reports = json.loads(report_path.read_text())["suites"]
    assert list(reports) == ["suite", "again"]  # judged together, reported one by one
    for report in reports.values():
        assert (report["programs"], report["samples_per_program"]) == (2, 2)
        assert report["pass_at_n"] == 0 and report["rejected_by_stage"]["unparsed"] == 4
    head, *rows = capsys.readouterr().out.splitlines()[:3]
    assert head.split() == ["suite", "programs", "first", "sample", "faster", "pass@2", "all",
                            "samples", "faster", "unparsed"]
    assert [row.split() for row in rows] == [["suite", "2"] + ["0.0%"] * 5 + ["4"],
                                             ["again", "2"] + ["0.0%"] * 5 + ["4"]]


def test_evaluate_judges_answers_with_the_verifier(pairs):
    tasks = [{"id": p["id"], "pytorch": p["program"]} for p in pairs[:2]]
    completions = [[format_answer(pairs[0]["solution"]), "no answer"],
                   [format_answer(WRONG_CANDIDATE), format_answer(WRONG_CANDIDATE)]]
    report = evaluate.judge(tasks, completions, BIN, "cpu")
    first, second = report["per_program"]
    assert first["samples"][0]["outcome"] == "passed", first["samples"][0]
    assert first["samples"][1]["outcome"] == "unparsed"
    assert all(s["outcome"] in evaluate.STAGES[1:] and s["reason"] for s in second["samples"])
    assert report["first_sample_pass"] == report["pass_at_n"] == 0.5
    assert report["samples_passed"] == 1 and report["sample_pass"] == 0.25
    # faster counts passed samples only (the CPU's timings decide whether this one is)
    assert report["sample_faster"] <= report["sample_pass"]
    assert report["first_sample_faster"] <= report["first_sample_pass"]
    rejected = report["rejected_by_stage"]
    assert rejected["unparsed"] == 1 and sum(rejected.values()) == 3
