"""drtriton policies: a KernelBench-format program in, candidate solutions out.

Every writer of solutions is a policy behind one interface (docs/design.md, Policies), so that
`drtriton convert --policy`, evaluation and search treat them alike:

    compiler        the built-in compiler (`drtriton convert --no-verify`): deterministic,
                    so one answer however many are asked for
    model:DIR       a causal LM checkpoint trained here, or any save_pretrained directory
                    (drtriton.learn.sample.ModelPolicy)
    endpoint:URL    an OpenAI-compatible chat-completions server (a vLLM server, a hosted
                    model); URL is its base, as in http://localhost:8000/v1, and
                    endpoint:URL#NAME names the model (default: the server's first). The key,
                    if the server wants one, comes from DRTRITON_API_KEY or OPENAI_API_KEY.

All of them are asked with prompt.build_prompt and read back with prompt.read_answer, which
says why a completion holds no answer.

    python -m drtriton.policy --policy SPEC --program FILE.py [--program ...] --samples N \
        --out-dir DIR

asks for all programs in one batch, writes DIR/p000_s000.py, ... (program, sample) for the
completions that hold an answer and prints one JSON line per program: {"program": FILE,
"samples": N, "parsed": k, "files": [...], "unparsed": [{"sample": i, "why": ...}]}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from .learn.prompt import build_prompt, format_answer, read_answer


class PolicyError(Exception):
    """A policy that cannot answer at all (no server, no checkpoint): the user's to fix."""


class CompilerPolicy:
    """The built-in compiler, as a policy: its solution as a fenced answer."""

    def __init__(self, binary: str):
        self.binary = binary

    def complete(self, programs: list[str], samples: int = 1, **_) -> list[list[str]]:
        answers = []
        with tempfile.TemporaryDirectory(prefix="drtriton-policy-") as tmp:
            for i, source in enumerate(programs):
                program, out = os.path.join(tmp, f"p{i}.py"), os.path.join(tmp, f"p{i}_sol.py")
                with open(program, "w", encoding="utf-8") as f:
                    f.write(source)
                r = subprocess.run([self.binary, "convert", program, "--no-verify", "-o", out],
                                   capture_output=True, text=True)
                if r.returncode != 0:  # a program the compiler cannot take: no answer
                    why = (r.stderr.strip().splitlines() or ["?"])[-1]
                    answers.append([f"The built-in compiler cannot convert this program: {why}"])
                    continue
                with open(out, encoding="utf-8") as f:
                    answers.append([format_answer(f.read(), eos="")])
        return answers


class EndpointPolicy:
    """An OpenAI-compatible chat-completions server. Each program is one request asking for
    all its samples (`n`); servers that return fewer choices are asked again for the rest."""

    RETRIES = 3

    def __init__(self, url: str, model: str | None = None, timeout: float = 600.0):
        self.url = url.rstrip("/") + "/chat/completions"
        self.model = model
        self.timeout = timeout
        self.key = os.environ.get("DRTRITON_API_KEY") or os.environ.get("OPENAI_API_KEY")

    def _post(self, body: dict) -> dict:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        for attempt in range(self.RETRIES):
            request = urllib.request.Request(self.url, data=data, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as e:
                detail = e.read().decode(errors="replace")[:300]
                if e.code < 500 or attempt == self.RETRIES - 1:  # a 4xx will not heal
                    raise PolicyError(f"{self.url}: HTTP {e.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
                if attempt == self.RETRIES - 1:
                    raise PolicyError(f"{self.url}: {getattr(e, 'reason', e)}") from None
            except json.JSONDecodeError:
                raise PolicyError(f"{self.url}: the reply is not JSON") from None
            time.sleep(2 ** attempt)
        raise AssertionError("unreachable")

    def complete(self, programs: list[str], samples: int = 1, temperature: float = 0.8,
                 top_p: float = 0.95, max_tokens: int = 4096) -> list[list[str]]:
        answers = []
        for source in programs:
            texts = []
            while len(texts) < samples:
                body = {"messages": [{"role": "user", "content": build_prompt(source)}],
                        "n": samples - len(texts), "temperature": temperature,
                        "top_p": top_p, "max_tokens": max_tokens}
                if self.model:
                    body["model"] = self.model
                choices = self._post(body).get("choices")
                if not isinstance(choices, list) or not choices:
                    raise PolicyError(f"{self.url}: the reply has no choices")
                texts += [str((c.get("message") or {}).get("content") or "") for c in choices]
            answers.append(texts[:samples])
        return answers


class ModelPolicy:
    """A checkpoint; torch and transformers load only when this policy is used."""

    def __init__(self, ckpt: str, device: str | None = None):
        if not os.path.isdir(ckpt):
            raise PolicyError(f"model:{ckpt}: no such checkpoint folder")
        import torch

        from .learn.sample import ModelPolicy as Sampler
        self.sampler = Sampler(ckpt, device or ("cuda" if torch.cuda.is_available() else "cpu"))

    def complete(self, programs: list[str], samples: int = 1, temperature: float = 0.8,
                 top_p: float = 0.95, max_tokens: int = 2048) -> list[list[str]]:
        return self.sampler.generate(programs, samples, temperature, top_p, max_tokens)


def make_policy(spec: str, binary: str = "build/drtriton"):
    """The policy a --policy string names (module docstring)."""
    if spec == "compiler":
        return CompilerPolicy(binary)
    kind, sep, rest = spec.partition(":")
    if sep and rest and kind == "model":
        return ModelPolicy(rest)
    if sep and rest and kind == "endpoint":
        url, _, model = rest.partition("#")
        if not url.startswith(("http://", "https://")):
            raise PolicyError(f"endpoint:{rest}: the URL must start with http:// or https://")
        return EndpointPolicy(url, model or None)
    raise PolicyError(f"--policy {spec}: expected compiler, model:DIR or endpoint:URL")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drtriton.policy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", required=True, help="compiler, model:DIR or endpoint:URL")
    parser.add_argument("--program", required=True, action="append",
                        help="KernelBench-format program (.py); repeat it for several, "
                             "answered in one batch")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--temperature", type=float, default=0.8, help="0: greedy")
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="tokens per completion (default: 2048 for a model, 4096 for "
                             "an endpoint)")
    parser.add_argument("--binary", default=os.environ.get("DRTRITON_BIN", "build/drtriton"))
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args(argv)
    try:
        programs = []
        for path in args.program:
            with open(path, encoding="utf-8") as f:
                programs.append(f.read())
        policy = make_policy(args.policy, args.binary)
        extra = {} if args.max_tokens is None else {"max_tokens": args.max_tokens}
        answers = policy.complete(programs, args.samples, temperature=args.temperature,
                                  top_p=args.top_p, **extra)
    except (OSError, PolicyError) as e:
        print(f"drtriton policy: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    for k, (path, completions) in enumerate(zip(args.program, answers)):
        files, unparsed = [], []
        for i, completion in enumerate(completions):
            answer, why = read_answer(completion)
            if answer is None:
                unparsed.append({"sample": i, "why": why})
                where = f"{path}: " if len(args.program) > 1 else ""
                print(f"  {where}sample {i + 1}: no answer: {why}", file=sys.stderr)
                continue
            files.append(os.path.join(args.out_dir, f"p{k:03d}_s{i:03d}.py"))
            with open(files[-1], "w", encoding="utf-8") as f:
                f.write(answer)
        print(json.dumps({"program": path, "samples": len(completions), "parsed": len(files),
                          "files": files, "unparsed": unparsed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
