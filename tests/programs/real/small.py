"""The SMALL convention of the real-program corpus.

Every program of tests/programs/real/ defines, at module level, a dict literal

    SMALL = {"batch_size": 2, "in_features": 32}

naming some of its module-level size constants and the reduced values that make the program
small enough for Triton's CPU interpreter. `small_source(source)` rewrites the top-level
`NAME = value` assignments named in SMALL (found with the ast module; their value text is
replaced in place, so layout and comments stay) and drops the SMALL dict itself. Constants computed from others (`hidden = 4 * dim`) follow automatically.

    python tests/programs/real/small.py PROGRAM.py [-o OUT.py]
"""
import argparse
import ast
import sys


class SmallError(ValueError):
    pass


def small_values(tree):
    """The SMALL dict of a parsed program (a literal), or raise SmallError."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "SMALL"):
            try:
                value = ast.literal_eval(node.value)
            except ValueError as e:
                raise SmallError(f"SMALL is not a literal: {e}") from None
            if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                raise SmallError("SMALL must be a dict of constant names to values")
            return value
    raise SmallError("no module-level SMALL dict")


def small_source(source, filename="<program>"):
    """The program with its SMALL constants substituted and the SMALL dict removed. The
    assignments are found with ast; their value spans are replaced in the text, so the rest
    of the file (comments, layout, line numbers after the SMALL dict aside) is kept."""
    tree = ast.parse(source, filename=filename)
    values = small_values(tree)
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode("utf-8")))
    data = source.encode("utf-8")

    def pos(lineno, col):  # ast columns are UTF-8 byte offsets
        return offsets[lineno - 1] + col

    edits = []  # (start, end, replacement bytes), non-overlapping
    seen = set()
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if name == "SMALL":
            # The whole statement with its line end, and one blank line after it.
            end = node.end_lineno
            if end < len(lines) and not lines[end].strip():
                end += 1
            edits.append((pos(node.lineno, 0), offsets[end], b""))
        elif name in values:
            v = node.value
            edits.append((pos(v.lineno, v.col_offset), pos(v.end_lineno, v.end_col_offset),
                          repr(values[name]).encode("utf-8")))
            seen.add(name)
    missing = sorted(set(values) - seen)
    if missing:
        raise SmallError(f"SMALL names no top-level assignment: {', '.join(missing)}")
    for start, end, text in sorted(edits, reverse=True):
        data = data[:start] + text + data[end:]
    out = data.decode("utf-8")
    ast.parse(out, filename=filename)  # still a program
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description="Print the SMALL version of a corpus program.")
    parser.add_argument("program")
    parser.add_argument("-o", "--out", default=None)
    args = parser.parse_args(argv)
    with open(args.program) as f:
        text = small_source(f.read(), args.program)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
