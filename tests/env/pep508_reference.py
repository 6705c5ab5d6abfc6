#!/usr/bin/python3
"""Prints what packaging.requirements.Requirement makes of each entry of a PEP 508 corpus.

Usage: /usr/bin/python3 pep508_reference.py CORPUS

The corpus has one requirement per line, taken exactly as written (no stripping). Empty
lines and lines starting with '#' are skipped. A line starting with 'json:' holds a JSON
string literal, for entries that need control characters or exotic whitespace.

Output: one JSON object per entry, in corpus order:
  {"line": N, "text": ..., "ok": true, "name": ..., "extras": [sorted], "specifier": ...,
   "marker": ..., "url": ...}
  {"line": N, "text": ..., "ok": false, "error": first line of the message,
   "kind": exception class, "column": 1-based caret column or null}
"""

import json
import sys

import packaging
from packaging._tokenizer import ParserSyntaxError
from packaging.requirements import Requirement


def entries(path):
    with open(path, encoding="utf-8") as corpus:
        for number, line in enumerate(corpus.read().split("\n"), 1):
            if not line or line.startswith("#"):
                continue
            yield number, json.loads(line[5:]) if line.startswith("json:") else line


def verdict(text):
    try:
        requirement = Requirement(text)
    except Exception as error:  # packaging lets ValueError and SyntaxError through too
        cause = error.__cause__ if isinstance(error.__cause__, ParserSyntaxError) else None
        message = cause.message if cause else str(error).split("\n")[0]
        return {
            "ok": False,
            "error": message,
            "kind": type(error).__name__,
            "column": cause.span[1] + 1 if cause else None,
        }
    return {
        "ok": True,
        "name": requirement.name,
        "extras": sorted(requirement.extras),
        "specifier": str(requirement.specifier),
        "marker": str(requirement.marker) if requirement.marker else "",
        "url": requirement.url or "",
    }


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(json.dumps({"packaging": packaging.__version__}))
    for number, text in entries(sys.argv[1]):
        print(json.dumps({"line": number, "text": text, **verdict(text)}))


if __name__ == "__main__":
    main()
