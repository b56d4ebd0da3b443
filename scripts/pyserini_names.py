#!/usr/bin/env python3
"""Write harness/formats/pyserini_names.json: the topic and qrels names Pyserini resolves, as its
registry (castorini/eval's topics.json, qrels.json and their aliases, at the commit the installed
pyserini pins in pyserini/search/_base.py, EVAL_COMMIT) maps them, with Pyserini's own local aliases.

Pyserini downloads that registry on every call to get_topics/get_qrels_file; the harness never
downloads, so it keeps this snapshot and resolves a name to the file Pyserini caches for it
(tests/test_caches.py checks that the snapshot's commit is the one the installed pyserini pins).

    python scripts/pyserini_names.py PATH/TO/castorini-eval-checkout
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "harness" / "formats" / "pyserini_names.json"


def pyserini_dir() -> Path:
    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("pyserini is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def eval_commit(pkg: Path) -> str:
    m = re.search(r"^EVAL_COMMIT = '([0-9a-f]{40})'", (pkg / "search" / "_base.py").read_text(), re.M)
    if not m:
        sys.exit("no EVAL_COMMIT in pyserini/search/_base.py")
    return m.group(1)


def apply_aliases(mapping: dict, aliases: dict) -> None:
    """Pyserini's _apply_aliases: each alias of a registered canonical name maps to its entry."""
    for canonical, names in aliases.items():
        if canonical in mapping:
            for alias in names:
                mapping[alias] = mapping[canonical]


def main(repo: str) -> None:
    pkg = pyserini_dir()
    commit = eval_commit(pkg)

    def show(name: str) -> dict:
        return json.loads(
            subprocess.run(["git", "-C", repo, "show", f"{commit}:{name}"], check=True, capture_output=True).stdout
        )

    topics = show("topics.json")
    apply_aliases(topics, show("topics-aliases.json"))
    apply_aliases(topics, json.loads((pkg / "resources" / "local-topics-aliases.json").read_text()))
    qrels = show("qrels.json")
    apply_aliases(qrels, show("qrels-aliases.json"))
    apply_aliases(qrels, json.loads((pkg / "resources" / "local-qrels-aliases.json").read_text()))
    reader = re.compile(r"io\.anserini\.search\.topicreader\.([A-Za-z0-9]+)TopicReader\Z")
    out = {
        "eval_commit": commit,
        "topics": {
            n: [Path(t["path"]).name, reader.match(t["reader_class"]).group(1)] for n, t in sorted(topics.items())
        },
        "qrels": {n: Path(q).name for n, q in sorted(qrels.items())},
    }
    OUT.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"{OUT}: {len(out['topics'])} topic names, {len(out['qrels'])} qrels names at {commit}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
