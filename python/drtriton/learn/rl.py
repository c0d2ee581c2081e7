"""Curriculum reinforcement learning with the verifier as the reward.

    python -m drtriton.learn.rl --model WARMUP_CKPT --out RUN --algo drpo|grpo --levels 1,2,5 \\
        --promote_at 0.5 --group 8 [--service URL[,URL...]] [--lr 1e-5 ...]
    torchrun --nproc_per_node 8 -m drtriton.learn.rl ...   (data parallel, one service per GPU)
    python -m drtriton.learn.rl --out RUN --resume [--max_minutes 60 ...]

One step, on every process: `prompts` fresh synthetic programs of the current level
(`drtriton synth`, seeds of this run only, never the evaluation suites); `group` sampled
completions of each; every completion judged by `drtriton serve` (batched, spread over the
services, retried); the chosen rule (rl_loss.py: DRPO or GRPO, the only difference between
twin runs) plus the KL trust region to the frozen warm-up policy; one optimizer step
(on-policy: the samples come from the weights being updated). Every `eval_every` steps the
greedy pass rate on a fixed development set of the level (its own seed, not the evaluation
suites) decides the curriculum: at `promote_at` or above, the next level; at the last level,
`patience` evaluations without a gain stop the run. With `replay`, a share of each step's
prompts stays on the levels already passed.

RUN holds the policy (save_pretrained: the whole model, or with --lora_r its adapters only),
trainer_state.pt (optimizer, step, level, RNG states), rl_config.json, metrics.jsonl,
metrics.png and samples.jsonl (every judged completion of the main process with its
verdict); --resume continues from it.
"""

import json
import math
import os
import random
import subprocess
import tempfile
import time
from collections import Counter

# --max_minutes counts from here: loading the model and starting the services are part of
# the budget a caller gives (a device call of four runs spent 60 s and more on them)
PROCESS_START = time.time()
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

import torch
from torch.nn.parallel import DistributedDataParallel

from ..service_client import Service, judge_once
from . import model as model_lib, rl_loss
from .prompt import parse_answer
from .sample import cache_options, prompt_batch
from .sft import (Distributed, keep_metrics_until, option, parse_config, rng_state,
                  set_rng_state)

STATE_FILE = "trainer_state.pt"
CONFIG_FILE = "rl_config.json"
METRICS_FILE = "metrics.jsonl"
SAMPLES_FILE = "samples.jsonl"  # every judged completion of the main process, with its verdict
DEV_SEED = 7_000_000  # + level: the development sets; training seeds start at TRAIN_SEED
TRAIN_SEED = 8_000_000
STAGES = ("unparsed", "static", "load", "compile", "faithful", "correct", "timed")


@dataclass
class Config:
    model: str = option("", "the warm-up checkpoint (save_pretrained directory): the policy "
                            "starts there and the KL reference stays there")
    out: str = option("", "run directory")
    algo: str = option("drpo", "drpo (decoupled rewards) or grpo (combined reward)")
    levels: str = option("1,2,5", "curriculum: synthetic difficulties, in order")
    promote_at: float = option(0.5, "development pass rate that promotes to the next level")
    replay: float = option(0.0, "after a promotion, the share of each step's prompts drawn "
                                "from the levels already passed: a policy that passes nothing "
                                "at its new level still learns from those (0: none)")
    patience: int = option(3, "evaluations without a gain at the last level before stopping")
    group: int = option(8, "completions per prompt")
    prompts: int = option(4, "prompts per process and step")
    size: str = option("tiny", "program sizes (drtriton synth --size): tiny, small, bench")
    prompts_file: str = option("", "JSONL of programs (field pytorch; difficulty, if present, "
                                   "sorts them into levels) to draw prompts and the "
                                   "development set from, instead of drtriton synth")
    max_steps: int = option(200, "optimizer steps")
    max_minutes: float = option(0.0, "time budget from the process's start; when spent, save "
                                     "and stop (0: none)")
    lr: float = option(1e-5, "learning rate (constant)")
    grad_clip: float = option(1.0, "gradient norm clip; 0: none")
    temperature: float = option(1.0, "sampling temperature")
    top_p: float = option(1.0, "nucleus sampling")
    max_new_tokens: int = option(1024, "tokens per completion")
    kv_cache: str = option("dynamic", "the sampler's KV cache: dynamic or static (compiled "
                                      "decoding)")
    lam: float = option(1.0, "DRPO: temperature of the softmax over the correct ones' speed")
    push: float = option(1.0, "DRPO: weight of the log-sum-exp push-down of the wrong ones")
    kl_delta: float = option(0.05, "trust region: KL to the reference allowed free")
    kl_coef: float = option(1.0, "trust region: penalty per unit of KL beyond kl_delta; 0: off")
    service: str = option("", "URL[,URL...] of running `drtriton serve`s; empty: start one "
                              "per process")
    binary: str = option(os.environ.get("DRTRITON_BIN", "build/drtriton"),
                         "the drtriton binary (synth, and serve when started)")
    workers: int = option(0, "verifier workers of a started service (0: its default)")
    compile_timeout: int = option(30, "a started service's --compile-timeout (s): a sample "
                                      "whose kernels hang costs this, not the service's 120 s")
    run_timeout: int = option(90, "a started service's --run-timeout (s)")
    eval_every: int = option(10, "steps between development evaluations")
    eval_programs: int = option(16, "programs of a level's development set")
    save_every: int = option(50, "steps between checkpoints (and one at the end)")
    seed: int = option(0, "sampling and program seeds")
    bf16: bool = option(True, "bf16 autocast on CUDA")
    lora_r: int = option(0, "LoRA rank: train adapters on the frozen warm-up instead of every "
                            "weight; the run's checkpoint is then a few MB, small enough to "
                            "carry between machines. 0: train every weight")
    lora_alpha: int = option(32, "LoRA scale")


class Verifier:
    """The services that judge completions: given by URL, or one started by this process."""

    def __init__(self, cfg: Config, device: str, rank: int):
        if cfg.service:
            urls = cfg.service.split(",")
            self.services = [Service.connect(urls[(rank + i) % len(urls)])
                             for i in range(len(urls))]
        else:
            args = ["--device", device, "--compile-timeout", str(cfg.compile_timeout),
                    "--run-timeout", str(cfg.run_timeout)]
            args += ["--workers-per-gpu", str(cfg.workers)] if cfg.workers else []
            self.services = [Service(cfg.binary, *args)]
        self.device = device

    def judge(self, tasks: list[str], completions: list[str]) -> list[dict]:
        """One verdict-like dict per completion: passed, stage (of rejection), reason,
        speedup."""
        items, places = [], []
        results = [{"passed": False, "stage": "unparsed", "reason": "no answer",
                    "speedup": None} for _ in completions]
        for i, (task, completion) in enumerate(zip(tasks, completions)):
            answer = parse_answer(completion)
            if answer is not None:
                items.append({"task": task, "candidate": answer,
                              "options": {"device": self.device, "compile": False}})
                places.append(i)
        for i, verdict in zip(places, judge_once(items, self.spread)):
            results[i] = {"passed": bool(verdict["passed"]),
                          "stage": "passed" if verdict["passed"]
                          else verdict.get("failed_stage") or "none",
                          "reason": (verdict.get("reason") or "")[:500],
                          "speedup": verdict.get("speedup_eager"),
                          "speed": (verdict.get("reward") or {}).get("speed")}
        return results

    def spread(self, items: list[dict]) -> list[dict]:
        """The verdicts of `items`, judged by all the services at once. A task's items go to
        one service (tasks dealt round robin), whose workers then reuse that task's work
        (the verifier's task cache) instead of each service redoing it."""
        n = len(self.services)
        service_of: dict[str, int] = {}
        shares: list[list[int]] = [[] for _ in range(n)]
        for i, item in enumerate(items):
            shares[service_of.setdefault(item["task"], len(service_of) % n)].append(i)
        with ThreadPoolExecutor(n) as pool:
            answers = list(pool.map(self.post, self.services,
                                    [[items[i] for i in share] for share in shares]))
        verdicts = [None] * len(items)
        for share, chunk in zip(shares, answers):
            for i, verdict in zip(share, chunk):
                verdicts[i] = verdict
        return verdicts

    @staticmethod
    def post(service, items, tries=3):
        if not items:
            return []
        for attempt in range(tries):
            try:
                return service.post("/verify_batch", {"items": items})["verdicts"]
            except (OSError, RuntimeError):
                if attempt == tries - 1:
                    raise
                time.sleep(2 ** attempt)

    def close(self):
        for s in self.services:
            s.close()


def level_programs(cfg: Config, level: int, count: int, seed: int, dev: bool = False) -> list[str]:
    """`count` programs of the level: fresh from `drtriton synth` with this seed, or drawn
    from --prompts_file (its programs of that difficulty, or all when it has none); a
    development set from the file is its first `count` programs of the level."""
    if not cfg.prompts_file:
        return synth_programs(cfg, level, count, seed)
    with open(cfg.prompts_file) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    pool = [r["pytorch"] for r in rows if r.get("difficulty", level) == level]
    if not pool:
        raise SystemExit(f"{cfg.prompts_file}: no program of difficulty {level}")
    return pool[:count] if dev else random.Random(seed).choices(pool, k=count)


class Prompts:
    """The programs of each step, drawn one step ahead in a background thread (`drtriton
    synth` traces and numerically checks them: seconds a step, now hidden behind the
    sampling), and each level's development set, drawn once. The draws depend on the seeds
    only, so drawing ahead changes nothing a resumed run would see."""

    def __init__(self, cfg: Config):
        self.cfg, self.dev = cfg, {}
        self.pool = ThreadPoolExecutor(1)
        self.ahead = None  # ((mix, seed), future)

    def step(self, mix: tuple, seed: int, next_seed: int) -> list[str]:
        """The step's programs: `count` of each `(level, count)` of `mix`, in that order."""
        if self.ahead and self.ahead[0] == (mix, seed):
            programs = self.ahead[1].result()
        else:  # the first step, or the level changed
            programs = self.draw(mix, seed)
        self.ahead = ((mix, next_seed), self.pool.submit(self.draw, mix, next_seed))
        return programs

    def draw(self, mix: tuple, seed: int) -> list[str]:
        return [p for level, count in mix for p in level_programs(self.cfg, level, count, seed)]

    def development(self, level: int) -> list[str]:
        if level not in self.dev:
            self.dev[level] = level_programs(self.cfg, level, self.cfg.eval_programs,
                                             DEV_SEED + level, dev=True)
        return self.dev[level]

    def close(self):
        self.pool.shutdown(cancel_futures=True)


def synth_programs(cfg: Config, level: int, count: int, seed: int) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "programs.jsonl")
        subprocess.run([cfg.binary, "synth", "--count", str(count), "--difficulty",
                        f"{level}:{level}", "--seed", str(seed), "--size", cfg.size,
                        "--numeric-check", "--jobs", "1", "--out", path], check=True, capture_output=True)
        with open(path) as f:
            return [json.loads(line)["pytorch"] for line in f]


def token_logprobs(model, ids, attention, completion_start):
    """(log-probabilities of each completion token, entropy of each completion position):
    both (B, T_completion). Position ids follow the attention mask, as in generation."""
    positions = (attention.cumsum(-1) - 1).clamp(min=0)
    logits = model(input_ids=ids, attention_mask=attention, position_ids=positions).logits
    logits = logits[:, completion_start - 1:-1].float()
    logp = torch.log_softmax(logits, dim=-1)
    chosen = logp.gather(-1, ids[:, completion_start:, None]).squeeze(-1)
    with torch.no_grad():
        entropy = -(logp.exp() * logp).sum(-1)
    return chosen, entropy


class Trainer:
    def __init__(self, cfg: Config, resume: bool):
        self.cfg, self.env = cfg, Distributed()
        if cfg.algo not in rl_loss.RULES:
            raise SystemExit(f"--algo {cfg.algo}: choose one of {', '.join(rl_loss.RULES)}")
        try:
            self.levels = [int(x) for x in cfg.levels.split(",")]
        except ValueError:
            raise SystemExit(f"--levels {cfg.levels!r}: expected difficulties such as 1,2,5")
        if not os.path.isfile(cfg.binary):
            raise SystemExit(f"--binary {cfg.binary}: no such file (build drtriton first)")
        state_path = os.path.join(cfg.out, STATE_FILE)
        if resume and not os.path.exists(state_path):
            raise SystemExit(f"{cfg.out}: no checkpoint to resume")
        if not resume and os.path.exists(state_path):
            raise SystemExit(f"{cfg.out}: holds a run already (--resume continues it)")
        torch.manual_seed(cfg.seed)  # fresh LoRA adapters are drawn at random: one draw per seed
        try:
            # a LoRA run resumes its adapters on --model, wherever the run was started
            policy, self.tokenizer = model_lib.load(
                cfg.out if resume else cfg.model, lora_r=cfg.lora_r, lora_alpha=cfg.lora_alpha,
                base=cfg.model if resume and cfg.lora_r else "")
            self.reference = model_lib.load(cfg.model)[0].to(self.env.device).eval()
        except (ValueError, OSError) as e:
            raise SystemExit(f"--model {cfg.model}: {e}")
        if self.env.main:
            os.makedirs(cfg.out, exist_ok=True)
            with open(os.path.join(cfg.out, CONFIG_FILE), "w") as f:
                json.dump(asdict(cfg), f, indent=1)
        self.reference.requires_grad_(False)
        self.tokenizer.padding_side = "left"
        policy.to(self.env.device).eval()
        self.model = policy if self.env.world == 1 else DistributedDataParallel(
            policy, device_ids=[self.env.device.index] if self.env.device.type == "cuda" else None)
        self.optimizer = torch.optim.AdamW([p for p in policy.parameters() if p.requires_grad],
                                           lr=cfg.lr, weight_decay=0.0)
        self.step, self.level_index, self.best_dev, self.stale = 0, 0, -1.0, 0
        if resume:
            state = torch.load(state_path, weights_only=False)
            self.optimizer.load_state_dict(state["optimizer"])
            for key in ("step", "level_index", "best_dev", "stale"):
                setattr(self, key, state[key])
            if len(state["rng"]) == self.env.world:
                set_rng_state(state["rng"][self.env.rank])
            if self.env.main:
                for name in (METRICS_FILE, SAMPLES_FILE):
                    keep_metrics_until(os.path.join(cfg.out, name), self.step)
        else:
            torch.manual_seed(cfg.seed * 1000 + self.env.rank)
            if self.env.main:
                for name in (METRICS_FILE, SAMPLES_FILE):
                    open(os.path.join(cfg.out, name), "w").close()
        self.verifier = Verifier(cfg, self.env.device.type, self.env.rank)
        self.prompts = Prompts(cfg)

    @property
    def policy(self):
        return getattr(self.model, "module", self.model)

    def autocast(self):
        return torch.autocast("cuda", dtype=torch.bfloat16,
                              enabled=self.cfg.bf16 and self.env.device.type == "cuda")

    @torch.no_grad()
    def sample(self, programs: list[str], n: int, greedy: bool = False):
        """(input ids, attention mask, completion start, completion texts): n completions per
        program, grouped by program; completion tokens after the first end marker are masked."""
        batch = prompt_batch(self.tokenizer, programs, self.cfg.kv_cache).to(self.env.device)
        sampling = dict(do_sample=False) if greedy else dict(
            do_sample=True, temperature=self.cfg.temperature, top_p=self.cfg.top_p,
            num_return_sequences=n)
        sampler = model_lib.merged(self.policy)
        with self.autocast():
            ids = sampler.generate(**batch, max_new_tokens=self.cfg.max_new_tokens,
                                   pad_token_id=self.tokenizer.pad_token_id,
                                   eos_token_id=self.tokenizer.eos_token_id,
                                   **cache_options(self.cfg.kv_cache), **sampling)
        if self.env.device.type == "cuda":
            torch.cuda.empty_cache()  # the KV cache's blocks, for the verifier's workers
        start = batch["input_ids"].shape[1]
        completion = ids[:, start:]
        ended = (completion == self.tokenizer.eos_token_id).int().cumsum(-1)
        keep = (ended == 0) | ((ended == 1) & (completion == self.tokenizer.eos_token_id))
        prompt_mask = batch["attention_mask"].repeat_interleave(1 if greedy else n, dim=0)
        attention = torch.cat([prompt_mask, keep.long()], dim=1)
        texts = self.tokenizer.batch_decode(completion * keep + self.tokenizer.pad_token_id * ~keep,
                                            skip_special_tokens=True)
        return ids, attention, start, texts

    def train_seed(self, step: int) -> int:
        """The synth seed of a step's programs: its own per run seed, step and process."""
        env = self.env
        return TRAIN_SEED + (self.cfg.seed * 100_000 + step) * env.world + env.rank

    def prompt_mix(self) -> tuple:
        """((level, prompts), ...) of a step: the current level, and with --replay a share
        dealt round robin over the levels passed, latest first."""
        cfg, current = self.cfg, self.levels[self.level_index]
        passed = self.levels[:self.level_index][::-1]
        replayed = min(round(cfg.replay * cfg.prompts), cfg.prompts - 1) if passed else 0
        counts = Counter(passed[i % len(passed)] for i in range(replayed))
        return ((current, cfg.prompts - replayed),) + tuple(
            (level, counts[level]) for level in passed if counts[level])

    def train_step(self) -> dict:
        cfg, env = self.cfg, self.env
        level = self.levels[self.level_index]
        mix = self.prompt_mix()
        t_prompts = time.time()
        programs = self.prompts.step(mix, self.train_seed(self.step),
                                     self.train_seed(self.step + 1))
        t0 = time.time()
        ids, attention, start, texts = self.sample(programs, cfg.group)
        t1 = time.time()
        tasks = [p for p in programs for _ in range(cfg.group)]
        verdicts = self.verifier.judge(tasks, texts)
        t2 = time.time()
        self.log_samples(texts, verdicts)
        correct = torch.tensor([v["passed"] for v in verdicts], device=env.device)
        # the verifier's speed reward: log(t_eager / t_cand), clipped, and lowered where the
        # timing was noisy (so that noise never pays); its speedup where a verdict has none
        speed = torch.tensor([(v["speed"] if v.get("speed") is not None
                               else rl_loss.speed_score(v["speedup"], 1.0)) if v["passed"] else 0.0
                              for v in verdicts], device=env.device)
        rule = rl_loss.RULES[cfg.algo]
        rule_args = dict(lam=cfg.lam, beta=cfg.push) if cfg.algo == "drpo" else {}
        # eval mode throughout: dropout would make the policy's log-probabilities differ from
        # those it sampled with, and from the reference's, for no reason the rule knows of
        totals = Counter()
        for g in range(len(programs)):  # one group per backward: memory of one group only
            rows = slice(g * cfg.group, (g + 1) * cfg.group)
            mask = attention[rows, start:].bool()
            with self.autocast():
                logp, entropy = token_logprobs(self.model, ids[rows], attention[rows], start)
                with torch.no_grad():
                    ref, _ = token_logprobs(self.reference, ids[rows], attention[rows], start)
            tokens = mask.sum(-1).clamp(min=1)
            seq_logp = (logp * mask).sum(-1) / tokens
            loss, parts = rule(seq_logp, correct[rows], speed[rows], **rule_args)
            kl = rl_loss.kl_to_reference(logp, ref, mask)
            loss = loss + rl_loss.trust_region_penalty(kl, cfg.kl_delta, cfg.kl_coef)
            (loss / len(programs)).backward()
            totals.update({"loss": loss.item(), "kl": kl.item(),
                           "entropy": entropy[mask].mean().item() if mask.any() else 0.0,
                           **parts})
        if cfg.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.grad_clip)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        record = {k: env.mean(v / len(programs)) for k, v in totals.items()}
        record.update(self.verdict_metrics(verdicts))
        if len(mix) > 1:  # the pass rate of each level's prompts
            first = 0
            for mixed_level, count in mix:
                share = verdicts[first * cfg.group:(first + count) * cfg.group]
                record[f"pass_rate_level{mixed_level}"] = env.sum(
                    sum(v["passed"] for v in share)) / env.sum(len(share))
                first += count
        record.update(step=self.step, level=level, prompt_s=round(t0 - t_prompts, 2),
                      sample_s=round(t1 - t0, 2),
                      verify_s=round(t2 - t1, 2), update_s=round(time.time() - t2, 2))
        return record

    def log_samples(self, texts: list[str], verdicts: list[dict]):
        """The step's completions and verdicts, for reading what was rewarded and why
        (reward hacking shows here first)."""
        if not self.env.main:
            return
        with open(os.path.join(self.cfg.out, SAMPLES_FILE), "a") as f:
            for i, (text, verdict) in enumerate(zip(texts, verdicts)):
                f.write(json.dumps({"step": self.step + 1, "prompt": i // self.cfg.group,
                                    **verdict, "completion": text}) + "\n")

    def verdict_metrics(self, verdicts: list[dict]) -> dict:
        """The shares the run is judged by, over every process's samples."""
        env = self.env
        total = env.sum(len(verdicts))
        passed = [v for v in verdicts if v["passed"]]
        speeds = [math.log(v["speedup"]) for v in passed if v["speedup"]]
        stages = Counter(v["stage"] for v in verdicts)
        record = {"pass_rate": env.sum(len(passed)) / total,
                  "faster_than_eager": env.sum(sum(s > 0 for s in speeds)) / total,
                  "hacking_flags": env.sum(sum(v["speedup"] > 10 for v in passed
                                               if v["speedup"]))}
        correct_with_speed = env.sum(len(speeds))
        record["mean_log_speedup"] = (env.sum(sum(speeds)) / correct_with_speed
                                      if correct_with_speed else None)
        for stage in ("passed",) + STAGES:
            record["share_" + stage] = env.sum(stages[stage]) / total
        return record

    def evaluate(self) -> float:
        """Greedy pass rate on the level's development set, split over the processes."""
        cfg, env = self.cfg, self.env
        level = self.levels[self.level_index]
        programs = self.prompts.development(level)
        mine = programs[env.rank::env.world]
        passed = 0
        if mine:
            _, _, _, texts = self.sample(mine, 1, greedy=True)
            passed = sum(v["passed"] for v in self.verifier.judge(mine, texts))
        return env.sum(passed) / max(len(programs), 1)

    def curriculum(self, dev: float) -> str | None:
        """Promotes at promote_at; at the last level, counts evaluations without a gain.
        Returns why the run stops, or None."""
        if dev >= self.cfg.promote_at and self.level_index + 1 < len(self.levels):
            self.level_index += 1
            self.best_dev, self.stale = -1.0, 0
            return None
        if dev > self.best_dev:
            self.best_dev, self.stale = dev, 0
        else:
            self.stale += 1
        last = self.level_index + 1 == len(self.levels)
        return "plateau" if last and self.stale >= self.cfg.patience else None

    def save(self):
        rng = self.env.gather(rng_state())
        if self.env.main:
            self.policy.save_pretrained(self.cfg.out)
            self.tokenizer.save_pretrained(self.cfg.out)
            state = {"step": self.step, "level_index": self.level_index,
                     "best_dev": self.best_dev, "stale": self.stale, "rng": rng,
                     "optimizer": self.optimizer.state_dict()}
            path = os.path.join(self.cfg.out, STATE_FILE)
            torch.save(state, path + ".tmp")
            os.replace(path + ".tmp", path)
        self.env.barrier()

    def log(self, record: dict):
        if self.env.main:
            with open(os.path.join(self.cfg.out, METRICS_FILE), "a") as f:
                f.write(json.dumps(record) + "\n")
            shown = {k: record[k] for k in ("step", "level", "pass_rate", "dev_pass", "loss", "kl")
                     if record.get(k) is not None}
            print("rl: " + " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                    for k, v in shown.items()), flush=True)

    def run(self) -> dict:
        cfg, start, stopped = self.cfg, PROCESS_START, "max_steps"
        # A step is never started that would end past the budget, were it as long as the
        # longest so far, plus the longest evaluation when one is due after it (a step's
        # length until one was seen). The process's first step does not count: it also
        # warms the GPU up (120 s, where later steps took 30 to 70 s).
        longest, longest_eval, first = 0.0, 0.0, True
        while self.step < cfg.max_steps:
            step_start = time.time()
            record = self.train_step()
            self.log(record)
            if not first:
                longest = max(longest, time.time() - step_start)
            first = False
            if self.step % cfg.eval_every == 0 or self.step == cfg.max_steps:
                eval_start = time.time()
                dev = self.evaluate()
                longest_eval = max(longest_eval, time.time() - eval_start)
                self.log({"step": self.step, "level": self.levels[self.level_index],
                          "dev_pass": dev})
                why = self.curriculum(dev)
                if why:
                    stopped = why
            ahead = longest
            if (self.step + 1) % cfg.eval_every == 0 or self.step + 1 == cfg.max_steps:
                ahead += longest_eval or longest
            out_of_time = cfg.max_minutes > 0 and self.env.sum(
                float(time.time() - start + ahead >= cfg.max_minutes * 60)) > 0
            if out_of_time:
                stopped = "max_minutes"
            if self.step % cfg.save_every == 0 or stopped != "max_steps" or \
                    self.step == cfg.max_steps:
                self.save()
            if stopped != "max_steps":
                break
        if self.env.main:
            plot_metrics(cfg.out)
            print(f"rl: stopped at step {self.step} ({stopped}) at level "
                  f"{self.levels[self.level_index]}; policy in {cfg.out}", flush=True)
        return {"step": self.step, "stopped": stopped,
                "level": self.levels[self.level_index]}

    def close(self):
        self.prompts.close()
        self.verifier.close()
        self.env.close()


def plot_metrics(out: str):
    """metrics.png: pass rates, speed, KL, entropy, where the samples were rejected, and
    the reward-hacking flags (verified speedups over 10x), against the step."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(os.path.join(out, METRICS_FILE)) as f:
        records = [json.loads(line) for line in f]
    panels = [(("pass_rate", "dev_pass", "faster_than_eager"), "share"),
              (("mean_log_speedup",), "log(t_eager / t_cand)"), (("kl",), "KL to warm-up"),
              (("entropy",), "entropy (nats/token)"),
              (tuple("share_" + s for s in ("passed",) + STAGES), "share of samples"),
              (("hacking_flags",), "speedups over 10x")]
    fig, axes = plt.subplots(3, 2, figsize=(10, 9))
    for ax, (keys, label) in zip(axes.flat, panels):
        for key in keys:
            points = [(r["step"], r[key]) for r in records if r.get(key) is not None]
            if points and (not key.startswith("share_") or any(v for _, v in points)):
                ax.plot(*zip(*points), label=key.removeprefix("share_"),
                        marker="." if key == "dev_pass" else None)
        ax.set_xlabel("step")
        ax.set_ylabel(label)
        if ax.lines:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "metrics.png"), dpi=100)
    plt.close(fig)


def train(cfg: Config, resume: bool = False) -> dict:
    trainer = Trainer(cfg, resume)
    try:
        return trainer.run()
    finally:
        trainer.close()


def parse_args(argv=None) -> tuple[Config, bool]:
    return parse_config(Config, argv, "python -m drtriton.learn.rl", __doc__, CONFIG_FILE,
                        ("model", "the warm-up checkpoint"))


if __name__ == "__main__":
    train(*parse_args())
