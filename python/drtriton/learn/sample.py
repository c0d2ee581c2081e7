"""Completions from a checkpoint: the `transformers` policy of DESIGN.md section 6 (prompts
in, completions out), for evaluation, test-time search and reinforcement learning.

    python -m drtriton.learn.sample --ckpt CKPT --program FILE.py --samples 8 \\
        --temperature 0.8 --top-p 0.95 --out-dir DIR

writes DIR/sample_000.py, ... for the completions that hold an answer (prompt.parse_answer)
and prints one JSON line {"samples": N, "parsed": k, "files": [...]}.
"""

import argparse
import json
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from .prompt import build_prompt, parse_answer


class ModelPolicy:
    """A causal LM checkpoint (a save_pretrained directory, full or LoRA adapters) that
    answers programs. Batches are left-padded so every prompt ends where generation starts."""

    def __init__(self, ckpt_dir: str, device: str = "cpu", dtype=None):
        self.device = torch.device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(ckpt_dir, padding_side="left")
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        # bf16 halves the KV cache and the weight reads on a GPU; a CPU keeps fp32
        dtype = dtype or (torch.bfloat16 if self.device.type == "cuda" else torch.float32)
        self.model = AutoModelForCausalLM.from_pretrained(ckpt_dir, dtype=dtype)
        self.model.to(self.device).eval()

    @torch.no_grad()
    def generate(self, program_sources: list[str], samples: int = 1, temperature: float = 1.0,
                 top_p: float = 1.0, max_new_tokens: int = 2048, batch_size: int = 32,
                 seed: int | None = None) -> list[list[str]]:
        """`samples` completions for each program, in order. temperature 0 is greedy decoding
        (one completion, repeated). At most `batch_size` sequences are decoded at once."""
        if seed is not None:
            torch.manual_seed(seed)
        greedy = temperature == 0
        sampling = dict(do_sample=False) if greedy else dict(
            do_sample=True, temperature=temperature, top_p=top_p, num_return_sequences=samples)
        per_call = max(1, batch_size // (1 if greedy else samples))
        completions = []
        for start in range(0, len(program_sources), per_call):
            prompts = [build_prompt(s) for s in program_sources[start:start + per_call]]
            batch = self.tokenizer(prompts, return_tensors="pt", padding=True).to(self.device)
            output = self.model.generate(**batch, max_new_tokens=max_new_tokens,
                                         pad_token_id=self.tokenizer.pad_token_id,
                                         eos_token_id=self.tokenizer.eos_token_id, **sampling)
            texts = self.tokenizer.batch_decode(output[:, batch["input_ids"].shape[1]:],
                                                skip_special_tokens=True)
            if greedy:
                completions += [[text] * samples for text in texts]
            else:
                completions += [texts[i:i + samples] for i in range(0, len(texts), samples)]
        return completions


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m drtriton.learn.sample", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ckpt", required=True, help="save_pretrained directory")
    parser.add_argument("--program", required=True, help="KernelBench-format program (.py)")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--temperature", type=float, default=0.8, help="0: greedy")
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--max-new-tokens", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args(argv)
    with open(args.program, encoding="utf-8") as f:
        program = f.read()
    policy = ModelPolicy(args.ckpt, args.device)
    [completions] = policy.generate([program], args.samples, args.temperature, args.top_p,
                                    args.max_new_tokens, seed=args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    files = []
    for i, completion in enumerate(completions):
        answer = parse_answer(completion)
        if answer is not None:
            files.append(os.path.join(args.out_dir, f"sample_{i:03d}.py"))
            with open(files[-1], "w", encoding="utf-8") as f:
                f.write(answer)
    print(json.dumps({"samples": len(completions), "parsed": len(files), "files": files}))


if __name__ == "__main__":
    main()
