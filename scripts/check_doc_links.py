#!/usr/bin/env python3
"""Checks the links between the project's Markdown files: every relative link must name a file or folder that
exists, and every #anchor one of the target's headings, as GitHub makes a heading's anchor. A section renamed
or moved then fails the test suite (tests/CMakeLists.txt runs this) instead of leaving readers at the top of a
long page.

    python3 scripts/check_doc_links.py [ROOT]

Checks the Markdown files git tracks under ROOT (default: the repository; outside a git checkout, every one
but those in hidden and build folders), outside fenced code blocks.
Links to web addresses are not followed. Prints one line per broken link, `file:line: [text](target): why`,
and exits 1 if there is any.
"""

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[([^\]]*)\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: inline markup dropped, lower case, punctuation removed (letters, digits,
    marks, spaces, hyphens and underscores kept), each space a hyphen."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("*", "").lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LNM":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def outside_fences(lines):
    """(line number, line) of the lines that are not inside a fenced code block."""
    fenced = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def anchors_of(path: Path, cache: dict) -> set:
    if path not in cache:
        seen = {}
        found = set()
        lines = path.read_text(encoding="utf-8").splitlines()
        for _, line in outside_fences(lines):
            for name in HTML_ANCHOR.findall(line):
                found.add(name)
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def tracked_markdown(root: Path):
    """The Markdown files git tracks; outside a git checkout (a source archive), every one below ROOT but in
    hidden folders and build folders."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "*.md"], cwd=root, capture_output=True, check=True)
        return [root / name for name in out.stdout.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in sorted(root.rglob("*.md"))
                if not any(part.startswith((".", "build")) for part in p.relative_to(root).parts[:-1])]


def check(root: Path) -> list:
    cache = {}
    problems = []
    for md in tracked_markdown(root):
        lines = md.read_text(encoding="utf-8").splitlines()
        for number, line in outside_fences(lines):
            # Inline code is not a link: `a[i](x)` in a code span must not be read as one (a code span may
            # still be a link's text).
            line = re.sub(r"`[^`]*`", lambda c: re.sub(r"[\[\]()]", "", c.group(0)), line)
            for m in LINK.finditer(line):
                text = m.group(1) if m.group(1) is not None else m.group(3)
                target = m.group(2) if m.group(2) is not None else m.group(4)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                    continue
                where = f"{md.relative_to(root)}:{number}: [{text}]({target})"
                path_part, _, anchor = target.partition("#")
                dest = md if path_part == "" else (md.parent / path_part).resolve()
                if not dest.exists():
                    problems.append(f"{where}: no such file or folder")
                    continue
                if anchor and dest.suffix == ".md" and anchor not in anchors_of(dest, cache):
                    problems.append(f"{where}: no heading with that anchor in {dest.relative_to(root.resolve())}")
    return problems


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} broken link(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
