#!/usr/bin/env python3
"""House rule (issue #35): the include graph is layered, with no back edges.

Each source folder may include only the folders beneath it:

    core (include/gpuplan, src/core)
      <- io/text  <- io/catalogs, io/model_files, io/usage  <- io/render, io/fetch
      <- io/emit (the core only)
      <- store (io/usage's ledger records)
      <- cli (everything)

and the core includes no third-party parser or CLI header (it is pure math). A folder's own
headers are always allowed. The CMake targets link in the same shape (src/io/CMakeLists.txt), so
an include outside it would also be a missing link dependency for a library user.
Usage: layers.py ROOT   (exit 1 listing each file:line that breaks the order)
"""
import pathlib
import re
import sys

# folder -> the folders it may include (besides itself). "core" is gpuplan/*.hpp.
ALLOWED = {
    "core": set(),
    "io/text": {"core"},
    "io/catalogs": {"core", "io/text"},
    "io/model_files": {"core", "io/text"},
    "io/usage": {"core", "io/text"},
    "io/emit": {"core"},
    "io/render": {"core", "io/text", "io/catalogs", "io/usage"},
    "io/fetch": {"core", "io/text", "io/catalogs"},
    "store": {"core", "io/text", "io/usage"},
    "cli": {"core", "io/text", "io/catalogs", "io/model_files", "io/usage", "io/emit", "io/render", "io/fetch",
            "store"},
}
CORE_FORBIDDEN = ("yaml-cpp/", "nlohmann/", "CLI/", "fmt/", "sqlite3.h", "libpq", "curl/")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def folder_of(rel):
    """The layer a source file (path under the root) belongs to, or None if unchecked."""
    parts = rel.parts
    if parts[0] == "include" or parts[:2] == ("src", "core"):
        return "core"
    if parts[0] != "src" or len(parts) < 3:
        return None
    if parts[1] == "io":
        return "io/" + parts[2] if len(parts) > 3 else "io"  # a file directly under src/io is an error
    return parts[1]


def layer_of_include(path):
    if path.startswith("gpuplan/"):
        return "core"
    m = re.match(r"(io/[a-z_]+)/", path)
    if m:
        return m.group(1)
    if path.startswith("io/"):
        return "io"
    for top in ("cli", "store", "core"):
        if path.startswith(top + "/"):
            return top
    return None  # the standard library, third-party, or a same-folder header


def check(root):
    bad = []
    files = sorted(p for d in ("include", "src") for p in (root / d).rglob("*") if p.suffix in (".hpp", ".cpp"))
    for path in files:
        rel = path.relative_to(root)
        layer = folder_of(rel)
        if layer is None:
            continue
        if layer not in ALLOWED:
            bad.append(f"{rel}: in no layer (src/io files live in a concept folder; see src/io/CMakeLists.txt)")
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(2)
            if layer == "core" and target.startswith(CORE_FORBIDDEN):
                bad.append(f"{rel}:{n}: the core includes <{target}>; it stays free of parsers and the CLI")
            to = layer_of_include(target)
            if to is not None and to != layer and to not in ALLOWED[layer]:
                bad.append(f"{rel}:{n}: {layer} includes {target} ({to} is not beneath {layer})")
    return bad, len(files)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    bad, n = check(pathlib.Path(sys.argv[1]))
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} include(s) against the layer order")
        return 1
    print(f"{n} files, layered: no back edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
