#!/usr/bin/env python3
"""Lists C++ functions in src/ longer than a limit, and the share of src/ that src/cli holds.

The house rule (README, "Layout"): functions fit on a screen; none over 100 lines, and src/cli
stays well under half of src/. A rough brace scanner, not a parser: a function body is a `{`
opened at namespace level after a `)` (or `) const`, `-> T`, ...), closed by its matching `}`.
Strings, characters and comments are skipped so their braces do not count.
Usage: function_lengths.py [--max N] [--cli-share F] SRC_DIR   (exit 1 when a limit is broken)
"""
import argparse
import pathlib
import re
import sys


def strip(text):
    """Blanks out comments, strings and char literals, keeping newlines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = strip(path.read_text())
    lines = text.split("\n")
    depth, ns_depth, found, start = 0, [0], [], None
    head = ""
    for no, line in enumerate(lines, 1):
        for ch in line:
            if ch == "{":
                is_ns = re.search(r"\bnamespace\b[^;{}]*$", head) is not None
                is_func = depth == ns_depth[-1] and re.search(r"\)\s*(const|noexcept|override|final|->[^{;]*|\s)*$", head) is not None
                if is_ns:
                    ns_depth.append(depth + 1)
                elif is_func and start is None and not re.search(r"\b(struct|class|enum|union)\b[^;{}]*$", head):
                    name = re.search(r"([\w:~]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$", head)
                    start = (no, depth, name.group(1) if name else "?")
                depth += 1
                head = ""
            elif ch == "}":
                depth -= 1
                if len(ns_depth) > 1 and depth < ns_depth[-1]:
                    ns_depth.pop()
                if start and depth == start[1]:
                    found.append((start[2], start[0], no - start[0] + 1))
                    start = None
                head = ""
            elif ch == ";":
                head = ""
            else:
                head += ch
        head += " "
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=100)
    ap.add_argument("--cli-share", type=float, default=0.5)
    ap.add_argument("src")
    a = ap.parse_args()
    src = pathlib.Path(a.src)
    bad, total, cli = [], 0, 0
    for f in sorted(src.rglob("*.[ch]pp")):
        n = len(f.read_text().split("\n"))
        total += n
        cli += n if f.relative_to(src).parts[0] == "cli" else 0
        for name, line, length in functions(f):
            if length > a.max:
                bad.append(f"{f}:{line}: {name} is {length} lines (limit {a.max})")
    share = cli / total if total else 0
    print(f"src/cli holds {cli} of {total} lines in src/ ({share:.0%}; limit {a.cli_share:.0%})")
    for b in bad:
        print(b)
    if share >= a.cli_share:
        print("src/cli is too large a share of src/")
    print(f"{len(bad)} functions over {a.max} lines")
    return 1 if bad or share >= a.cli_share else 0


if __name__ == "__main__":
    sys.exit(main())
