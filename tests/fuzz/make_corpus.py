#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus into DIR: every YAML file of configs/ (topologies and experiment
sweeps), every ```yaml block of README.md and docs/*.md, and the hand-written seeds of tests/fuzz/seeds/.
A fuzz input is a --set line, then the file (tests/fuzz/fuzz_input.hpp); a file's seed gets an empty
first line, and one more seed per file with parameters sets each parameter to 2.

usage: make_corpus.py SOURCE_DIR CORPUS_DIR
"""
import pathlib
import re
import sys

import yaml


def params_of(text):
    """The names under `params:` (python3-yaml is in scripts/setup.sh's list); none if it is not a map."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    params = doc.get("params") if isinstance(doc, dict) else None
    return [str(k) for k in params] if isinstance(params, dict) else []


def main():
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    texts = {}
    for f in sorted((src / "configs").rglob("*.yaml")):
        texts[str(f.relative_to(src)).replace("/", "_")] = f.read_text()
    for doc in [src / "README.md", *sorted((src / "docs").glob("*.md"))]:
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S)):
            texts[f"{doc.stem}_{i}.yaml"] = block
    for name, text in texts.items():
        (out / name).write_text("\n" + text)
        names = params_of(text)
        if names:
            (out / ("set_" + name)).write_text(" ".join(f"{n}=2" for n in names) + "\n" + text)
    for f in sorted((src / "tests/fuzz/seeds").glob("*")):
        (out / ("seed_" + f.name)).write_bytes(f.read_bytes())
    print(f"make_corpus: {len(list(out.iterdir()))} files in {out}")


if __name__ == "__main__":
    main()
