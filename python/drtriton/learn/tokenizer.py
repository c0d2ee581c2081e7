"""A byte-level BPE tokenizer trained on the project's own corpus, for the `small` model.

Byte-level, so every string (tabs, runs of spaces, blank lines, any Unicode) encodes and
decodes back exactly: generated code is only useful if its indentation survives. The
`tokenizers` library trains it; `transformers` wraps it, so it saves with `save_pretrained`
and loads with `AutoTokenizer` like any other.

    python -m drtriton.learn.tokenizer --data pairs.jsonl --out DIR [--extra FILE ...]
"""

import argparse
import json
from collections.abc import Iterable, Iterator

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import PreTrainedTokenizerFast

from .prompt import EOS_TOKEN, build_prompt, format_answer

BOS_TOKEN = "<|bos|>"
PAD_TOKEN = "<|pad|>"


def read_pairs(path: str) -> list[dict]:
    """The pairs of a JSONL file (one JSON object a line; blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pair_texts(pairs: Iterable[dict]) -> Iterator[str]:
    """The text a model sees of each pair: its prompt, then its answer."""
    for pair in pairs:
        yield build_prompt(pair["program"])
        yield format_answer(pair["solution"])


def train_tokenizer(texts: Iterable[str], vocab_size: int = 4096) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer learned from `texts`; adds BOS in front of each encoding."""
    special = [BOS_TOKEN, EOS_TOKEN, PAD_TOKEN]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    bos_id = tokenizer.token_to_id(BOS_TOKEN)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{BOS_TOKEN} $A", pair=f"{BOS_TOKEN} $A $B", special_tokens=[(BOS_TOKEN, bos_id)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token=BOS_TOKEN,
                                   eos_token=EOS_TOKEN, pad_token=PAD_TOKEN)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m drtriton.learn.tokenizer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="pairs JSONL (drtriton pairs)")
    parser.add_argument("--out", required=True, help="directory for save_pretrained")
    parser.add_argument("--extra", nargs="*", default=[], help="more text files to learn from")
    parser.add_argument("--vocab-size", type=int, default=4096)
    args = parser.parse_args(argv)
    texts = list(pair_texts(read_pairs(args.data)))
    for path in args.extra:
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    tokenizer = train_tokenizer(texts, args.vocab_size)
    tokenizer.save_pretrained(args.out)
    print(f"tokenizer: {len(tokenizer)} tokens from {len(texts)} texts -> {args.out}")


if __name__ == "__main__":
    main()
