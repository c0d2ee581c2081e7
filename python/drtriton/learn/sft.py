"""Supervised warm-up: teach a causal LM the answer format and the compiler's
kernels from (program, verified solution) pairs before reinforcement learning starts.

    python -m drtriton.learn.sft --model small --data pairs.jsonl --out CKPT [--lr 3e-4 ...]
    torchrun --nproc_per_node 8 -m drtriton.learn.sft ...   (data parallel; --fsdp shards)
    python -m drtriton.learn.sft --out CKPT --resume [--max_minutes 60 ...]

Every field of Config is a flag of the same name (--help lists them). Loss on the answer
tokens only. CKPT is a save_pretrained directory (model and tokenizer) plus
trainer_state.pt (optimizer, scheduler, step, data cursor, every process's RNG states),
train_config.json, metrics.jsonl, loss.png, and best/ (the save_pretrained files of the
lowest held-out loss, with best.json naming its step); --resume continues from it exactly, with
the flags given then overriding the saved configuration.
"""

import argparse
import contextlib
import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass, field, fields

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict,
                                                     set_optimizer_state_dict)
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm
from transformers import AutoTokenizer, get_cosine_with_min_lr_schedule_with_warmup
from transformers.utils import logging as transformers_logging

from . import data, model as model_lib, tokenizer as tokenizer_lib

STATE_FILE = "trainer_state.pt"
CONFIG_FILE = "train_config.json"
METRICS_FILE = "metrics.jsonl"
BEST_DIR = "best"  # the model of the lowest held-out loss (save_pretrained files)


def option(default, help):
    return field(default=default, metadata={"help": help})


@dataclass
class Config:
    model: str = option("small", "small or tiny (built here, from scratch) or a save_pretrained "
                                 "directory")
    data: str = option("", "pairs JSONL (drtriton pairs)")
    out: str = option("", "checkpoint directory")
    tokenizer: str = option("", "tokenizer directory for small/tiny; empty: train one on the "
                                "training pairs")
    vocab_size: int = option(4096, "vocabulary of a tokenizer trained here")
    dropout: float = option(0.0, "attention dropout of a preset model")
    lora_r: int = option(0, "LoRA rank for a directory model; 0: train every weight")
    lora_alpha: int = option(16, "LoRA scale")
    max_len: int = option(2048, "tokens of prompt + answer; longer examples are skipped")
    truncate: bool = option(False, "cut too-long examples at max_len instead of skipping them")
    heldout: float = option(0.05, "share of programs held out for the evaluation loss")
    batch_size: int = option(8, "examples per process and micro-step")
    grad_accum: int = option(1, "micro-steps per optimizer step")
    max_steps: int = option(2000, "optimizer steps (the cosine schedule ends there)")
    lr: float = option(3e-4, "peak learning rate")
    min_lr_rate: float = option(0.1, "final learning rate as a share of lr")
    warmup_steps: int = option(100, "linear warm-up steps")
    weight_decay: float = option(0.1, "AdamW weight decay (matrices only)")
    beta2: float = option(0.95, "AdamW beta2")
    grad_clip: float = option(1.0, "gradient norm clip; 0: none")
    eval_every: int = option(200, "steps between held-out evaluations (and one at the end)")
    save_every: int = option(500, "steps between checkpoints (and one at the end)")
    log_every: int = option(10, "steps between metrics lines")
    max_minutes: float = option(0.0, "time budget; when spent, save and stop (0: none)")
    seed: int = option(0, "model init, data order")
    fsdp: bool = option(False, "shard parameters and optimizer state (FSDP2) over processes")
    bf16: bool = option(True, "bf16 autocast on CUDA (weights stay fp32)")


class Distributed:
    """This process's place in a torchrun job (or alone): rank, world size, device."""

    def __init__(self):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.main = self.rank == 0
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        gpus = torch.cuda.device_count()
        if gpus:
            self.device = torch.device("cuda", local_rank % gpus)
            torch.cuda.set_device(self.device)
        else:
            self.device = torch.device("cpu")
        if self.world > 1 and not dist.is_initialized():
            # NCCL wants one GPU per process; more processes than GPUs (two on one GPU, to
            # try a data-parallel job on a one-GPU machine) share them over gloo.
            nccl = gpus and int(os.environ.get("LOCAL_WORLD_SIZE", self.world)) <= gpus
            dist.init_process_group("nccl" if nccl else "gloo")

    def barrier(self):
        if self.world > 1:
            dist.barrier()

    def mean(self, value: float) -> float:
        return self.sum(value) / self.world

    def sum(self, value: float) -> float:
        if self.world == 1:
            return value
        tensor = torch.tensor([value], dtype=torch.float64, device=self.device)
        dist.all_reduce(tensor)
        return tensor.item()

    def gather(self, obj) -> list:
        if self.world == 1:
            return [obj]
        objects = [None] * self.world
        dist.all_gather_object(objects, obj)
        return objects

    def close(self):
        if self.world > 1:
            dist.destroy_process_group()


def keep_metrics_until(path: str, step: int):
    """Drops the metrics lines written after a checkpoint's step: a resumed run writes them
    again. A file that is not there (a run's state carried without it) starts empty."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        kept = [line for line in f if json.loads(line)["step"] <= step]
    with open(path, "w") as f:
        f.writelines(kept)


def rng_state() -> dict:
    return {"python": random.getstate(), "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}


def set_rng_state(state: dict):
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if state["cuda"] is not None:
        torch.cuda.set_rng_state_all(state["cuda"])


def prepare_tokenizer(cfg: Config, train_pairs: list[dict], env: Distributed):
    """The tokenizer of a preset model: cfg.tokenizer, or trained on the training pairs by
    the first process and saved into cfg.out for every process to load."""
    if cfg.tokenizer:
        return AutoTokenizer.from_pretrained(cfg.tokenizer)
    if env.main:
        tokenizer_lib.train_tokenizer(tokenizer_lib.pair_texts(train_pairs),
                                      cfg.vocab_size).save_pretrained(cfg.out)
    env.barrier()
    return AutoTokenizer.from_pretrained(cfg.out)


def wrap(model, cfg: Config, env: Distributed):
    """The model as this job trains it: FSDP2 shards of each decoder layer, DDP, or itself."""
    if cfg.fsdp:
        from torch.distributed.fsdp import fully_shard
        layer_classes = set(model._no_split_modules or [])
        for module in model.modules():
            if type(module).__name__ in layer_classes:
                fully_shard(module)
        return fully_shard(model)
    if env.world > 1:
        return DistributedDataParallel(
            model, device_ids=[env.device.index] if env.device.type == "cuda" else None)
    return model


def gradient_sync(model, enabled: bool):
    """Skips the gradient all-reduce on micro-steps before the last one."""
    if isinstance(model, DistributedDataParallel) and not enabled:
        return model.no_sync()
    if hasattr(model, "set_requires_gradient_sync"):  # FSDP2
        model.set_requires_gradient_sync(enabled)
    return contextlib.nullcontext()


def build_optimizer(model, cfg: Config):
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": cfg.weight_decay},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, cfg.beta2))
    scheduler = get_cosine_with_min_lr_schedule_with_warmup(
        optimizer, cfg.warmup_steps, cfg.max_steps, min_lr_rate=cfg.min_lr_rate)
    return optimizer, scheduler


class Trainer:
    """One run: the model, its optimizer, the encoded pairs and the loop; built fresh, or
    from the checkpoint in cfg.out when resuming."""

    def __init__(self, cfg: Config, resume: bool):
        self.cfg, self.env = cfg, Distributed()
        transformers_logging.disable_progress_bar()  # one bar: the run's own
        env = self.env
        state_path = os.path.join(cfg.out, STATE_FILE)
        if not resume and os.path.exists(state_path):
            raise SystemExit(f"{cfg.out} holds a checkpoint: pass --resume or another --out")
        state = torch.load(state_path) if resume else None
        if env.main:
            os.makedirs(cfg.out, exist_ok=True)
            with open(os.path.join(cfg.out, CONFIG_FILE), "w") as f:
                json.dump(asdict(cfg), f, indent=1)
        env.barrier()

        train_pairs, held_pairs = data.split_pairs(tokenizer_lib.read_pairs(cfg.data), cfg.heldout)
        torch.manual_seed(cfg.seed)
        if resume:
            model, self.tokenizer = model_lib.load(cfg.out)
        else:
            tokenizer = (prepare_tokenizer(cfg, train_pairs, env)
                         if cfg.model in model_lib.PRESETS else None)
            model, self.tokenizer = model_lib.load(cfg.model, tokenizer, cfg.lora_r, cfg.lora_alpha,
                                                   attention_dropout=cfg.dropout)
        self.model = wrap(model.to(env.device), cfg, env)
        self.optimizer, self.scheduler = build_optimizer(self.model, cfg)

        self.train_set, too_long = data.encode_pairs(train_pairs, self.tokenizer, cfg.max_len,
                                                     cfg.truncate)
        self.held_set, held_too_long = data.encode_pairs(held_pairs, self.tokenizer, cfg.max_len,
                                                         cfg.truncate)
        if not self.train_set:
            raise SystemExit(f"{cfg.data}: no training example fits max_len={cfg.max_len}")
        if env.main:
            print(f"sft: {len(self.train_set)} training and {len(self.held_set)} held-out "
                  f"examples; {too_long + held_too_long} longer than {cfg.max_len} tokens "
                  f"{'truncated' if cfg.truncate else 'skipped'}; "
                  f"{sum(p.numel() for p in model.parameters()):,} parameters; "
                  f"{env.world} process(es) on {env.device.type}"
                  f"{f' ({dist.get_backend()})' if env.world > 1 else ''}", flush=True)

        self.step, self.order = 0, data.DataOrder(len(self.train_set), cfg.seed)
        self.best_eval_loss = math.inf
        if state is not None:
            self.restore(state)
        elif env.main:
            open(os.path.join(cfg.out, METRICS_FILE), "w").close()

    def restore(self, state: dict):
        set_optimizer_state_dict(self.model, self.optimizer, state["optimizer"],
                                 options=StateDictOptions(full_state_dict=True))
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self.order.cursor = state["step"], state["cursor"]
        self.best_eval_loss = state.get("best_eval_loss", math.inf)
        if len(state["rng"]) == self.env.world:
            set_rng_state(state["rng"][self.env.rank])
        elif self.env.main:
            print(f"sft: checkpoint of {len(state['rng'])} processes resumed on "
                  f"{self.env.world}: random states not restored", flush=True)
        if self.env.main:
            keep_metrics_until(os.path.join(self.cfg.out, METRICS_FILE), self.step)

    def autocast(self):
        return torch.autocast("cuda", dtype=torch.bfloat16,
                              enabled=self.cfg.bf16 and self.env.device.type == "cuda")

    def train_step(self) -> tuple[float, float]:
        """(mean loss over the processes, learning rate) of one optimizer step."""
        cfg, env = self.cfg, self.env
        self.model.train()
        micro_batches = self.order.next_step(cfg.batch_size, cfg.grad_accum, env.world, env.rank)
        loss_sum = 0.0
        for i, indices in enumerate(micro_batches):
            batch = data.collate([self.train_set[j] for j in indices],
                                 self.tokenizer.pad_token_id, env.device)
            with gradient_sync(self.model, i == len(micro_batches) - 1):
                with self.autocast():
                    loss = self.model(**batch).loss / len(micro_batches)
                loss.backward()
            loss_sum += loss.item()
        if cfg.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.grad_clip)
        lr = self.scheduler.get_last_lr()[0]
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        return env.mean(loss_sum), lr

    @torch.no_grad()
    def evaluate(self) -> float:
        """Mean loss per answer token over the held-out set. Batch j goes to process
        j % world; a process without a batch in the last round runs batch 0 and discards
        it, because FSDP needs every process in every forward."""
        cfg, env = self.cfg, self.env
        self.model.eval()
        batches = [self.held_set[i:i + cfg.batch_size]
                   for i in range(0, len(self.held_set), cfg.batch_size)]
        loss_sum, tokens = 0.0, 0
        for first in range(0, len(batches), env.world):
            mine = first + env.rank
            batch = data.collate(batches[mine if mine < len(batches) else 0],
                                 self.tokenizer.pad_token_id, env.device)
            with self.autocast():
                loss = self.model(**batch).loss.item()
            if mine < len(batches):
                count = int((batch["labels"][:, 1:] != data.IGNORE_INDEX).sum())
                loss_sum, tokens = loss_sum + loss * count, tokens + count
        if cfg.fsdp:  # FSDP's root keeps its gathered parameters after a forward alone
            self.model.reshard()
        return env.sum(loss_sum) / max(env.sum(tokens), 1)

    def export(self, directory: str):
        """save_pretrained files of the model and tokenizer (every process must call it)."""
        model_state = None
        if self.cfg.fsdp:  # gathered by name, so a tied weight comes twice; save_pretrained wants it once
            options = StateDictOptions(full_state_dict=True, cpu_offload=True)
            model_state = get_model_state_dict(self.model, options=options)
            tied = ({n for n, _ in self.model.named_parameters(remove_duplicate=False)}
                    - {n for n, _ in self.model.named_parameters()})
            model_state = {k: v for k, v in model_state.items() if k not in tied}
        if self.env.main:
            ddp = isinstance(self.model, DistributedDataParallel)
            model = self.model.module if ddp else self.model
            model.save_pretrained(directory, state_dict=model_state)
            self.tokenizer.save_pretrained(directory)

    def save(self):
        """Writes the checkpoint; trainer_state.pt last, so a complete one marks it whole."""
        cfg, env = self.cfg, self.env
        options = StateDictOptions(full_state_dict=True, cpu_offload=True)
        optimizer_state = get_optimizer_state_dict(self.model, self.optimizer, options=options)
        self.export(cfg.out)
        rng = env.gather(rng_state())
        if env.main:
            state = {"step": self.step, "cursor": self.order.cursor, "rng": rng,
                     "best_eval_loss": self.best_eval_loss,
                     "optimizer": optimizer_state, "scheduler": self.scheduler.state_dict()}
            path = os.path.join(cfg.out, STATE_FILE)
            torch.save(state, path + ".tmp")
            os.replace(path + ".tmp", path)
        env.barrier()

    def held_out_evaluation(self):
        """Logs the held-out loss; the lowest so far is exported to out/best, because a small
        data set is memorized long before the time budget ends."""
        loss = self.evaluate()
        self.log({"step": self.step, "eval_loss": loss})
        if loss < self.best_eval_loss:
            self.best_eval_loss = loss
            self.export(os.path.join(self.cfg.out, BEST_DIR))
            if self.env.main:
                with open(os.path.join(self.cfg.out, BEST_DIR, "best.json"), "w") as f:
                    json.dump({"step": self.step, "eval_loss": loss}, f)

    def log(self, record: dict):
        if self.env.main:
            with open(os.path.join(self.cfg.out, METRICS_FILE), "a") as f:
                f.write(json.dumps(record) + "\n")

    def run(self) -> dict:
        cfg, env = self.cfg, self.env
        start = time.time()
        stopped = "max_steps"
        bar = tqdm(total=cfg.max_steps, initial=self.step, disable=not env.main,
                   dynamic_ncols=True, desc="sft")
        while self.step < cfg.max_steps:
            loss, lr = self.train_step()
            bar.update(1)
            bar.set_postfix(loss=f"{loss:.4f}", lr=f"{lr:.2e}")
            last = self.step == cfg.max_steps
            if self.step % cfg.log_every == 0 or last:
                self.log({"step": self.step, "loss": loss, "lr": lr,
                          "elapsed_s": round(time.time() - start, 3)})
            if self.held_set and (self.step % cfg.eval_every == 0 or last):
                self.held_out_evaluation()
            out_of_time = cfg.max_minutes > 0 and env.sum(
                float(time.time() - start >= cfg.max_minutes * 60)) > 0
            if self.step % cfg.save_every == 0 or last or out_of_time:
                self.save()
            if out_of_time:
                stopped = "max_minutes"
                break
        bar.close()
        if env.main:
            plot_metrics(cfg.out)
            print(f"sft: stopped at step {self.step} ({stopped}); checkpoint in {cfg.out}",
                  flush=True)
        return {"step": self.step, "stopped": stopped}


def plot_metrics(out: str):
    """loss.png: training and held-out loss against the step."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(os.path.join(out, METRICS_FILE)) as f:
        records = [json.loads(line) for line in f]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("loss", "training"), ("eval_loss", "held out")):
        points = [(r["step"], r[key]) for r in records if key in r]
        if points:
            ax.plot(*zip(*points), label=label, marker="." if key == "eval_loss" else None)
    ax.set_xlabel("step")
    ax.set_ylabel("loss per answer token")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "loss.png"), dpi=100)
    plt.close(fig)


def train(cfg: Config, resume: bool = False) -> dict:
    trainer = Trainer(cfg, resume)
    try:
        return trainer.run()
    finally:
        trainer.env.close()


def parse_config(config_class, argv, prog: str, doc: str, config_file: str,
                 required: tuple[str, str]):
    """(config, resume) from the command line: every field of the dataclass `config_class`
    is a flag of the same name; --resume reads `config_file` in --out, and the flags given
    override it; otherwise the field named by required[0] must be given (required[1] says
    what it is)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its last checkpoint")
    for f in fields(config_class):
        kind = argparse.BooleanOptionalAction if f.type is bool else None
        parser.add_argument(f"--{f.name}", type=None if kind else f.type, action=kind,
                            default=None, help=f"{f.metadata['help']} (default: {f.default})")
    args = vars(parser.parse_args(argv))
    resume = args.pop("resume")
    given = {k: v for k, v in args.items() if v is not None}
    if not given.get("out"):
        parser.error("--out is required")
    if resume:
        with open(os.path.join(given["out"], config_file)) as f:
            given = {**json.load(f), **given}
    elif not given.get(required[0]):
        parser.error(f"--{required[0]} is required ({required[1]}), or --resume")
    return config_class(**given), resume


def parse_args(argv=None) -> tuple[Config, bool]:
    return parse_config(Config, argv, "python -m drtriton.learn.sft", __doc__, CONFIG_FILE,
                        ("data", "pairs JSONL"))


if __name__ == "__main__":
    train(*parse_args())
