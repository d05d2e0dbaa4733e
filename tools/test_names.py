#!/usr/bin/env python3
"""Catch test names that ctest can run: none with ';' or a leading '-'.

catch_discover_tests registers each TEST_CASE under its name. CMake splits a name at ';' into
two tests that each match nothing and pass without running anything, and ctest hands a name
starting with '-' to the test binary as an option. Either way the case never runs in CI.
Usage: test_names.py TESTS_DIR   (exit 1 listing each bad name)
"""
import pathlib
import re
import sys

NAME = re.compile(r'\b(?:TEST_CASE|SCENARIO)\(\s*"((?:[^"\\]|\\.)*)"')


def main():
    bad = []
    for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.cpp")):
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for name in NAME.findall(line):
                if ";" in name or name.startswith("-"):
                    bad.append(f"{path}:{n}: test name {name!r}: {'has a ;' if ';' in name else 'starts with -'} (ctest would never run it)")
    for b in bad:
        print(b)
    print(f"test names: {len(bad)} that ctest cannot run")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
