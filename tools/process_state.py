#!/usr/bin/env python3
"""House rule (issue #35): no process-wide mutable state outside main.

Each invocation's settings, catalogs, profile and exit code travel in values (cli::Context, the
command's returned int), so one process can run many invocations (tests, the CLI fuzz target)
and a reader sees where a value comes from. This scans src/ for what would break that:

- `static` variables that are not const (function-local or at namespace scope),
- `thread_local` variables,
- mutable variables at namespace scope (a line at column 0 that declares one),
- the singletons this rule removed (globals(), exit_code(), catalog(), active_profile(),
  ProfileScope).

A hit is allowed only through ALLOWED below, each with the reason it is not invocation state.
Usage: process_state.py SRC_DIR   (exit 1 listing each hit; a stale allow-list entry fails too)
"""
import pathlib
import re
import sys

# (path under src/, text on the line) -> why it may stay. Keep this short and each reason true.
ALLOWED = {
    ("cli/app.cpp", "static Invocation* kept"):
        "run() keeps the last invocation's App and Context so that exit need not free them; the next run() frees it and nothing reads it",
    ("cli/shipped_bands.cpp", "static const ShippedBands* bands"):
        "set once, before main, by the generated bands file's static initializer: build-time data, never changed after",
    ("cli/experiment.cpp", "thread_local SpecParser parser"):
        "a scratch parser, reset before each use: no value passes from one call to the next",
    ("cli/run_inputs.cpp", "thread_local RecordParser p"):
        "a scratch parser, reset before each use: no value passes from one call to the next",
    ("io/text/files.cpp", "static std::set<std::pair<dev_t, ino_t>> files"):
        "the files this process has read (run() resets it): an output may not overwrite an input, whatever path names it",
    ("io/text/files.cpp", "std::mutex inputs_mutex"): "guards the set above",
    ("io/text/files.cpp", "bool tracking = false"): "whether the set above is being filled (run() turns it on)",
    ("io/text/files.cpp", "static bool used = false"):
        "standard input is a process resource: it can be read once per process, whichever invocation reads it",
    ("io/fetch/http_fetch.cpp", "static std::string why"): "why libcurl did not load: dlopen is per process",
    ("io/fetch/http_fetch.cpp", "static void* lib"): "the libcurl handle: a loaded library belongs to the process",
    ("store/libpq_loader.cpp", "static std::string why"): "why libpq did not load: dlopen is per process",
    ("store/libpq_loader.cpp", "static void* handle"): "the libpq handle: a loaded library belongs to the process",
}

REMOVED = re.compile(r"(?<![\w.>:])(globals|exit_code|active_profile|catalog)\(\)(?! const)|\bProfileScope\b")
COLUMN0_SKIP = re.compile(
    r"^(namespace|using|struct|class|enum|union|template|typedef|const|constexpr|inline|extern|static_assert|return|"
    r"friend|public|private|protected|case|default|if|else|for|while|do|switch|\[\[)\b")


def static_variable(line):
    """Whether a line declares a non-const static or thread_local variable."""
    m = re.match(r"\s*(static\s+thread_local|thread_local|static)\s+(.*)", line)
    if not m:
        return False
    rest = m.group(2)
    if m.group(1) != "static" or rest.startswith("thread_local"):
        return True
    if re.match(r"const\s+[\w:<>]+\s*\*\s*\w+\s*[=;]", rest):
        return True  # static const T* p: the pointer itself can change
    if re.match(r"(const|constexpr|inline\s+const|inline\s+constexpr)\b", rest):
        return False
    head = rest.split("(", 1)[0]
    if "=" in head:
        return True  # static T name = ...; static T name = [] { ... }
    if "(" not in rest and rest.rstrip().endswith(";"):
        return True  # static T name;
    return bool(re.match(r"[\w:<>,\s*&]+\s[\w]+\s*\{", rest))  # static T name{...}


def namespace_variable(line):
    """Whether a column-0 line declares a mutable variable at namespace scope."""
    if not line or line[0] in " \t#/}{*" or COLUMN0_SKIP.match(line):
        return False
    code = line.split("//", 1)[0].rstrip()
    if not code.endswith(";"):
        return False
    head = code.split("(", 1)[0]
    return "(" not in code or "=" in head


def hits(src):
    found = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h", ".cc"):
            continue
        rel = path.relative_to(src).as_posix()
        in_raw = False  # inside a raw string literal R"( ... )": text, not code
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if in_raw:
                in_raw = ')"' not in line
                continue
            if 'R"(' in line and ')"' not in line.split('R"(', 1)[1]:
                in_raw = True
            if stripped.startswith("//"):
                continue
            if static_variable(line) or namespace_variable(line) or REMOVED.search(line.split("//", 1)[0]):
                found.append((rel, n, stripped))
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src = pathlib.Path(sys.argv[1])
    used = set()
    bad = []
    for rel, n, text in hits(src):
        key = next((k for k in ALLOWED if k[0] == rel and k[1] in text), None)
        if key:
            used.add(key)
        else:
            bad.append(f"src/{rel}:{n}: {text}")
    for key in ALLOWED:
        if key not in used:
            bad.append(f"allow-list entry matches nothing (remove it): src/{key[0]}: {key[1]}")
    if bad:
        print("process-wide mutable state outside main (pass it in cli::Context, or justify it in tools/process_state.py):")
        for b in bad:
            print("  " + b)
        return 1
    print(f"no process-wide mutable state outside main ({len(used)} allowed, each justified in tools/process_state.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
