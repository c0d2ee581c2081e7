"""Completions from a checkpoint: the `transformers` policy of docs/design.md, Policies (prompts
in, completions out), for evaluation, test-time search and reinforcement learning. Its
command line is the policies' one: python -m drtriton.policy --policy model:CKPT ...
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from . import model as model_lib
from .prompt import build_prompt


KV_CACHES = ("dynamic", "static")


def cache_options(kv_cache: str) -> dict:
    """generate()'s options for a KV cache kind: `dynamic` grows the cache token by token;
    `static` allocates it once at full length, which lets transformers compile the decoding
    step (fewer, larger GPU launches; the same tokens)."""
    if kv_cache not in KV_CACHES:
        raise ValueError(f"kv_cache must be one of {', '.join(KV_CACHES)}, not {kv_cache!r}")
    return {} if kv_cache == "dynamic" else {"cache_implementation": "static"}


def prompt_batch(tokenizer, programs: list[str], kv_cache: str = "dynamic"):
    """The prompts of `programs`, tokenized and left-padded to one length: with a static
    cache, to a multiple of 256 tokens, so that the compiled decoding step sees few shapes."""
    return tokenizer([build_prompt(p) for p in programs], return_tensors="pt", padding=True,
                     pad_to_multiple_of=256 if kv_cache == "static" else None)


class ModelPolicy:
    """A causal LM checkpoint (a save_pretrained directory, full or LoRA adapters) that
    answers programs. Batches are left-padded so every prompt ends where generation starts."""

    def __init__(self, ckpt_dir: str, device: str = "cpu", dtype=None, kv_cache: str = "dynamic"):
        self.device = torch.device(device)
        self.kv_cache = kv_cache
        self.tokenizer = AutoTokenizer.from_pretrained(ckpt_dir, padding_side="left")
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        # bf16 halves the KV cache and the weight reads on a GPU; a CPU keeps fp32
        dtype = dtype or (torch.bfloat16 if self.device.type == "cuda" else torch.float32)
        if model_lib.is_adapter(ckpt_dir):  # folded in fp32 before the cast: one rounding
            self.model = model_lib.merged(model_lib.load(ckpt_dir, self.tokenizer)[0]).to(dtype)
        else:
            self.model = AutoModelForCausalLM.from_pretrained(ckpt_dir, dtype=dtype)
        self.model.to(self.device).eval()

    def close(self):
        """Frees the model and the sampler's cached GPU memory: the verifier's workers judge
        on the same GPU next, and the KV caches of a large batch held over 100 GB there."""
        self.model = None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

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
            batch = prompt_batch(self.tokenizer, program_sources[start:start + per_call],
                                 self.kv_cache).to(self.device)
            output = self.model.generate(**batch, max_new_tokens=max_new_tokens,
                                         pad_token_id=self.tokenizer.pad_token_id,
                                         eos_token_id=self.tokenizer.eos_token_id,
                                         **cache_options(self.kv_cache), **sampling)
            texts = self.tokenizer.batch_decode(output[:, batch["input_ids"].shape[1]:],
                                                skip_special_tokens=True)
            if greedy:
                completions += [[text] * samples for text in texts]
            else:
                completions += [texts[i:i + samples] for i in range(0, len(texts), samples)]
        return completions
