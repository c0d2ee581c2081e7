"""The supervised warm-up and the `transformers` policy (DESIGN.md sections 6 and 7): the
prompt format, a tokenizer and a small model trained from scratch, the trainer, sampling and
the evaluation through the verifier. README.md describes the pipeline."""
