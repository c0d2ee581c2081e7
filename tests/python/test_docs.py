"""The documentation stands alone and stays in sync with the code (a few seconds).

- docs/operators.md is what scripts/ops_doc.py writes from `drtriton ops` now.
- Each command's options in docs/cli.md are its `--help` text now, verbatim.
- No user-facing page (README.md, docs/, the source folders' and tests' README.md files)
  points to the internal design notes (DESIGN.md, OPS.md) or to issue numbers, which
  readers of the repository cannot see.
- Every relative markdown link in those pages names a file or folder that exists, and a
  `#fragment` names a heading of the page it points to.
"""
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))

PAGE_PATTERNS = ["README.md", "docs/**/*.md", "src/**/README.md", "python/**/README.md",
                 "tests/**/README.md"]

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INTERNAL = re.compile(r"\b(DESIGN|OPS)\.md\b")
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)


def pages():
    found = set()
    for pattern in PAGE_PATTERNS:
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            rel = os.path.relpath(path, ROOT)
            if not rel.startswith((".venv", "build")):
                found.add(rel)
    return sorted(found)


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks, inline code removed."""
    out, in_fence = [], False
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                out.append((n, INLINE_CODE.sub("", line)))
    return out


def anchors(path):
    """GitHub's heading anchors of a markdown file: the heading's text (inline code kept,
    backticks dropped) in lower case, punctuation dropped, spaces to hyphens, repeats
    numbered."""
    seen, out, in_fence = {}, set(), False
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            m = None if in_fence else HEADING.match(line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(2).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_operators_doc_is_current():
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import ops_doc
    finally:
        sys.path.pop(0)
    expected = ops_doc.render(*ops_doc.load_table(BIN))
    with open(os.path.join(ROOT, "docs", "operators.md"), encoding="utf-8") as f:
        committed = f.read()
    assert committed == expected, \
        "docs/operators.md is out of date: run python3 scripts/ops_doc.py and commit the result"


def test_ops_doc_check_flag():
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ops_doc.py"), "--check",
                        "--bin", BIN], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def cli_help_blocks():
    """(command, the help text docs/cli.md shows for it): in each `## COMMAND` section, the
    code block whose second line is `Usage: build/drtriton COMMAND ...`."""
    blocks, section = [], None
    lines = open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## "):
            section = line[3:].strip()
        if (line == "```" and section and i + 2 < len(lines)
                and lines[i + 2].startswith(f"Usage: build/drtriton {section} ")):
            end = lines.index("```", i + 1)
            blocks.append((section, "\n".join(lines[i + 1:end])))
    return blocks


def test_cli_doc_shows_each_commands_help_as_it_is():
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    blocks = cli_help_blocks()
    assert len(blocks) >= 12
    stale = []
    for command, shown in blocks:
        # argv[0] as the page writes it: CLI11 prints it in the usage line
        now = subprocess.run(["build/drtriton", command, "--help"], executable=BIN,
                             capture_output=True, text=True).stdout.rstrip("\n")
        if now != shown:
            stale.append(command)
    assert not stale, f"docs/cli.md shows an old --help of: {', '.join(stale)}"


def test_no_pointers_to_internal_notes_or_issues():
    problems = []
    for page in pages():
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):  # code spans and blocks too
                m = INTERNAL.search(line)
                if m:
                    problems.append(f"{page}:{n}: {m.group(0)} is an internal design note")
        for n, line in prose_lines(page):
            m = ISSUE.search(line)
            if m:
                problems.append(f"{page}:{n}: {m.group(0)!r}: readers cannot see issue numbers")
    assert not problems, "\n".join(problems)


def test_relative_links_resolve():
    problems = []
    for page in pages():
        base = os.path.dirname(os.path.join(ROOT, page))
        for n, line in prose_lines(page):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                    continue  # http:, https:, mailto:
                path, _, fragment = target.partition("#")
                full = os.path.normpath(os.path.join(base, path)) if path else os.path.join(ROOT, page)
                rel = os.path.relpath(full, ROOT)
                if not os.path.exists(full):
                    problems.append(f"{page}:{n}: {target}: no such file")
                    continue
                if fragment and full.endswith(".md") and fragment not in anchors(rel):
                    problems.append(f"{page}:{n}: {target}: no heading #{fragment} in {rel}")
    assert not problems, "\n".join(problems)
