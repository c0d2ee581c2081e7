"""The supervised warm-up and the `transformers` policy (docs/design.md, Policies and Supervised warm-up): the
prompt format, a tokenizer and a small model trained from scratch, the trainer, sampling and
the evaluation through the verifier. README.md describes the pipeline."""
