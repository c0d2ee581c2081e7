"""The policies' models: one `transformers` causal LM code path for all of them.

`small` (and `tiny`, for tests) is a Llama-architecture decoder built from a config here,
never downloaded, and trained from scratch with the tokenizer of tokenizer.py. Any other
causal LM is a `save_pretrained` directory on disk, trained in full or through LoRA
adapters (`peft`).

`small` is sized for a checkpoint of at most 48 MB, tokenizer included, in fp32: about 11M
parameters (44 MB). fp32 rather than bf16 because the saved weights are then the training
weights themselves (bf16 autocast does the arithmetic on a GPU, the master weights stay
fp32), so a run resumes bit-exactly from the same files and CPU inference needs no cast;
bf16 would allow twice the parameters but make the checkpoint a lossy copy.
"""

import copy
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM

PRESETS = {
    # 6 x 1.57M per layer + a 1.57M embedding tied with the output layer (vocab 4096)
    "small": dict(hidden_size=384, intermediate_size=1024, num_hidden_layers=6,
                  num_attention_heads=6, num_key_value_heads=2, max_position_embeddings=4096),
    # a few hundred thousand parameters: the whole training path in seconds on a CPU
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096),
}


def build_small(tokenizer, preset: str = "small", **overrides) -> LlamaForCausalLM:
    """A freshly initialized decoder of `preset` for `tokenizer`'s vocabulary; `overrides`
    replace any LlamaConfig field."""
    fields = dict(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                  eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                  tie_word_embeddings=True, **PRESETS[preset])
    return LlamaForCausalLM(LlamaConfig(**{**fields, **overrides}))


def load(model_arg: str, tokenizer=None, lora_r: int = 0, lora_alpha: int = 16,
         dtype=torch.float32, base: str = "", **overrides):
    """(model, tokenizer) for a preset name (`tokenizer` required; `overrides` go to
    build_small) or a directory.

    A directory holding LoRA adapters (adapter_config.json) loads them, trainable, on `base`
    (a directory) or else on the base model their config names; otherwise `lora_r > 0` puts
    fresh adapters on every linear layer.
    """
    if model_arg in PRESETS:
        if tokenizer is None:
            raise ValueError(f"model '{model_arg}' is built from scratch and needs a tokenizer")
        return build_small(tokenizer, model_arg, **overrides), tokenizer
    if not os.path.isdir(model_arg):
        raise ValueError(f"model '{model_arg}': neither a preset ({', '.join(PRESETS)}) "
                         "nor a directory")
    tokenizer = tokenizer or AutoTokenizer.from_pretrained(model_arg)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if is_adapter(model_arg):
        from peft import AutoPeftModelForCausalLM, PeftModel
        if base:
            return PeftModel.from_pretrained(load(base, tokenizer, dtype=dtype)[0], model_arg,
                                             is_trainable=True), tokenizer
        return AutoPeftModelForCausalLM.from_pretrained(model_arg, is_trainable=True,
                                                        dtype=dtype), tokenizer
    model = AutoModelForCausalLM.from_pretrained(model_arg, dtype=dtype)
    if lora_r > 0:
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=lora_r, lora_alpha=lora_alpha,
                                                 target_modules="all-linear",
                                                 task_type="CAUSAL_LM"))
    return model, tokenizer


def is_adapter(directory: str) -> bool:
    """Whether a checkpoint directory holds LoRA adapters rather than a whole model."""
    return os.path.exists(os.path.join(directory, "adapter_config.json"))


def merged(model):
    """A plain model that computes what `model` does: a copy with its LoRA adapters folded
    into the weights (one matrix per layer instead of three: decoding is bound by GPU
    launches per token), or `model` itself when it has none. `model` is left as it was."""
    if not hasattr(model, "merge_and_unload"):
        return model
    return copy.deepcopy(model).merge_and_unload()


def save_bf16(src: str, dst: str):
    """A copy of checkpoint `src` with its weights in bf16: half the bytes to carry to another
    machine. Loading it in fp32 (as load() does) gives exactly the bf16 values, so a run that
    starts from the copy starts from one fixed model."""
    model = AutoModelForCausalLM.from_pretrained(src, dtype=torch.bfloat16)
    model.save_pretrained(dst)
    AutoTokenizer.from_pretrained(src).save_pretrained(dst)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(prog="python -m drtriton.learn.model",
                                     description="Writes a bf16 copy of a checkpoint.")
    parser.add_argument("src", help="a save_pretrained directory")
    parser.add_argument("dst", help="the directory of the copy")
    args = parser.parse_args()
    save_bf16(args.src, args.dst)
