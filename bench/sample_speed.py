"""How fast a checkpoint samples answers, with each KV cache of ModelPolicy: `dynamic`
(transformers' default, the cache grows token by token) against `static` (allocated once,
which lets transformers compile the decoding step). Sampling is most of the time of an
evaluation and of a reinforcement learning step. Same prompts, same sampling seed; prints
one row per cache, the ratio, and whether the greedy answers agree.

    python bench/sample_speed.py --ckpt CKPT --suite suite.jsonl [--programs 64]
        [--samples 4] [--max-new-tokens 1024] [--device cuda]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--suite", required=True, help="JSONL with a 'pytorch' field per line")
    parser.add_argument("--programs", type=int, default=64)
    parser.add_argument("--samples", type=int, default=4, help="sampled answers per program")
    parser.add_argument("--max-new-tokens", type=int, default=1024)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()

    import torch

    from drtriton.learn.evaluate import load_suite
    from drtriton.learn.sample import KV_CACHES, ModelPolicy

    sources = [t["pytorch"] for t in load_suite(args.suite, args.programs)]
    rows, greedy = [], {}
    for kv_cache in KV_CACHES:
        policy = ModelPolicy(args.ckpt, args.device, kv_cache=kv_cache)
        # The first call compiles (static) or warms up (dynamic): timed apart.
        start = time.perf_counter()
        greedy[kv_cache] = policy.generate(sources, 1, 0.0, 1.0, args.max_new_tokens, 1024)
        first = time.perf_counter() - start
        if args.device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        sampled = policy.generate(sources, args.samples, 1.0, 1.0, args.max_new_tokens, 1024,
                                  seed=0)
        if args.device == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        tokens = sum(len(policy.tokenizer(c)["input_ids"]) for s in sampled for c in s)
        rows.append((kv_cache, first, seconds, tokens))
        del policy
    print(f"{len(sources)} programs, {args.samples} samples each, up to {args.max_new_tokens} "
          f"new tokens, {args.device}")
    print(f"{'kv cache':<10}{'greedy (1st call) s':>22}{'sampled s':>12}{'tokens':>10}{'tokens/s':>10}")
    for kv_cache, first, seconds, tokens in rows:
        print(f"{kv_cache:<10}{first:>22.1f}{seconds:>12.1f}{tokens:>10}{tokens / seconds:>10.0f}")
    (_, _, dynamic_s, _), (_, _, static_s, _) = rows
    agree = sum(a == b for a, b in zip(greedy["dynamic"], greedy["static"]))
    print(f"static / dynamic sampling speed: {dynamic_s / static_s:.2f}x; greedy answers "
          f"identical for {agree} of {len(sources)} programs")


if __name__ == "__main__":
    main()
