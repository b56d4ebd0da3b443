"""One mistake, one error (issue 47 item 5): a config with one mistake gets one problem, the
mistake's, and none of what follows from it. Walked over every key of the schema: each key of
a valid config misspelt (``qrel:``, which then counts as given) or given a value of the wrong
kind, in a text, a dense and a Dask config; then the chains through the runs (an entry that
fails its own check still counts as a run), the fusions and the cross-key checks."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.config import SCHEMA, load_config
from harness.errors import ConfigError

from .conftest import REPO

CORPORA, TOPICS, QRELS = REPO / "corpora", REPO / "topics" / "demo.tsv", REPO / "qrels" / "demo.txt"
DENSE = REPO / "tests" / "data" / "anserini-dense"

# Valid configs that give as many keys as can go together; the walk mutates each key of each.
TEXT = {
    "name": "t",
    "collection": {"path": str(CORPORA), "format": "text-folder"},
    "index": {"path": "idx", "language": "en", "stemmer": "porter", "stopwords": True, "threads": 1},
    "topics": {"path": str(TOPICS), "format": "tsv", "remove_query": False},
    "qrels": {"path": str(QRELS)},
    "runs": [{"bm25": {"k1": [0.9, 1.2]}}, {"jm": {"lambda": 0.1}, "name": "mine"}],
    "depth": 100,
    "measures": ["AP", "P@10"],
    "expect": {"mine": {"AP": 0.3}},
    "expect_tolerance": 0.001,
    "evaluation": {"ties": "trec_eval", "missing_topics": "zero"},
    "compare": {
        "baseline": "mine",
        "measures": ["AP"],
        "test": "t",
        "permutations": 1000,
        "bootstrap_samples": 1000,
        "ci_level": 0.9,
        "seed": 1,
        "correction": "holm",
        "family": "per-measure",
        "alpha": 0.05,
        "align": "strict",
        "cross_validation": {"folds": 2},
    },
    "report": {"explorer_depth": 10, "explorer_topics": 10},
    "output": "out",
    "execution": {"engine": "local"},
}
VECTORS = {
    "name": "d",
    "collection": {"path": str(DENSE / "sample100.jsonl.gz"), "format": "vectors"},
    "index": {"vectors": "hnsw", "quantize": "int8", "M": 8, "efC": 100},
    "topics": {"path": str(DENSE / "topics.msmarco-passage-dev-openai-ada2.jsonl"), "format": "vectors"},
    "runs": [{"knn": {"efSearch": [10, 20]}}],
    "output": "out",
}
DASK = {
    "name": "k",
    "collection": {"path": str(CORPORA), "format": "text-folder"},
    "topics": str(TOPICS),
    "runs": ["bm25"],
    "output": "out",
    "execution": {"engine": "dask", "workers": 2, "index_shards": 2, "topics_per_task": 10, "timeout": 5},
}
BEIR = {**TEXT, "collection": {"path": str(CORPORA), "format": "beir", "fields": {"contents": 1.0, "title": 0.5}}}
BASES = {"text": TEXT, "vectors": VECTORS, "dask": DASK, "beir": BEIR}


def _keys(key=SCHEMA, prefix=()):
    for sub in key.keys:
        yield (*prefix, sub.name), sub
        if sub.type == "section":
            yield from _keys(sub, (*prefix, sub.name))


def _wrong(key) -> object:
    """A value of the wrong kind for ``key``: a number where a mapping or list goes, else a list."""
    return 7 if key.type in ("section", "runs", "measures", "compare-measures", "expect") else [[1]]


def _set(cfg: dict, path: tuple[str, ...], name: str, value) -> None:
    """Give ``cfg``'s key ``path`` (its last part replaced by ``name``) the value ``value``."""
    for part in path[:-1]:
        if not isinstance(cfg.get(part), dict):
            cfg[part] = {} if cfg.get(part) is None else {"path": cfg[part]}  # `topics: PATH`
        cfg = cfg[part]
    cfg.pop(path[-1], None)
    cfg[name] = value


def _problems(tmp_path: Path, cfg: dict) -> list:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    try:
        load_config(path)
    except ConfigError as e:
        return e.problems
    return []


def _given(cfg: dict, path: tuple[str, ...]) -> bool:
    for part in path:
        if not isinstance(cfg, dict) or part not in cfg:
            return False
        cfg = cfg[part]
    return True


def _cases(given: bool):
    """(base, key path, key): every key a base gives (``given``), or one no base gives with the base
    it is tried in (data named in caches, which no test has: `collection.irds`, `topics.pyserini`...)."""
    for path, key in _keys():
        bases = [b for b in BASES if _given(BASES[b], path)]
        if given:
            yield from (pytest.param(b, path, key, id=f"{b}:{'.'.join(path)}") for b in bases)
        elif not bases:
            yield pytest.param("text", path, key, id=".".join(path))


@pytest.mark.parametrize("base, path, key", list(_cases(given=True)))
def test_one_mistake_in_a_given_key_is_one_problem(tmp_path, base, path, key):
    assert _problems(tmp_path, BASES[base]) == []
    # misspelt: the key meant counts as given (nothing says it is missing, or needed by another)
    cfg = copy.deepcopy(BASES[base])
    _set(cfg, path, path[-1] + "x", "x")
    got = _problems(tmp_path, cfg)
    assert len(got) == 1 and f"did you mean {path[-1]!r}?" in got[0].message, [str(p) for p in got]
    # of the wrong kind: that key's problem alone
    cfg = copy.deepcopy(BASES[base])
    _set(cfg, path, path[-1], _wrong(key))
    got = _problems(tmp_path, cfg)
    assert len(got) == 1 and got[0].path.startswith(".".join(path)), [str(p) for p in got]


@pytest.mark.parametrize("base, path, key", list(_cases(given=False)))
def test_a_key_no_config_here_can_give_of_the_wrong_kind_is_one_problem(tmp_path, base, path, key):
    cfg = copy.deepcopy(BASES[base])
    _set(cfg, path, path[-1], _wrong(key))
    got = _problems(tmp_path, cfg)
    assert len(got) == 1 and got[0].path.startswith(".".join(path)), [str(p) for p in got]


# --- chains: a mistake and what used to follow from it ----------------------------------------

TWO_RUNS = f"""\
name: t
collection: {{path: {CORPORA}, format: text-folder}}
topics: {TOPICS}
qrels: {QRELS}
runs:
  - bm25: {{k1: 0.9, b: 0.4}}
  - jm: {{lambda: 0.1}}
compare: {{}}
output: out
"""
JM = "  - jm: {lambda: 0.1}\n"


def _edit(text: str, *pairs: str) -> str:
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in text, old
        text = text.replace(old, new)
    return text


CHAINS = [
    # (config, the one problem's key path); what used to follow is in the comment
    # an invalid run entry still counts as a run: no "compare needs at least two runs"
    (_edit(TWO_RUNS, "jm: {lambda", "dirichelt: {lambda"), "runs[1]"),
    (_edit(TWO_RUNS, "lambda: 0.1", "lamda: 0.1"), "runs[1].jm.lamda"),
    (_edit(TWO_RUNS, "lambda: 0.1", "lambda: 0"), "runs[1].jm.lambda"),
    (_edit(TWO_RUNS, "jm: {lambda: 0.1}", "bm25: {k1: 0.9, b: 0.4}"), "runs[1]"),  # given twice
    # ... nor "no run jm(lambda=0.1) in this config" where expect or a baseline names it
    (_edit(TWO_RUNS, "jm: {lambda", "jmm: {lambda") + "expect: {'jm(lambda=0.1)': {AP: 0.1}}\n", "runs[1]"),
    (_edit(TWO_RUNS, "compare: {}", "compare: {baseline: 'jm(lambda=0.1)'}", "jm: {", "jmm: {"), "runs[1]"),
    # ... and its name still names it: no "not a run name: unknown similarity 'mine'"
    (_edit(TWO_RUNS, JM, "  - {jm: {lamda: 0.1}, name: mine}\n") + "expect: {mine: {AP: 0.1}}\n", "runs[1].jm.lamda"),
    (
        _edit(TWO_RUNS, JM, "  - {jm: {lamda: 0.1}, name: mine}\n", "compare: {}", "compare: {baseline: mine}"),
        "runs[1].jm.lamda",
    ),
    # ... nor "no run 'mine'" where a fusion names it, by its given or its automatic name
    (_edit(TWO_RUNS, JM, "  - {jm: {lamda: 0.1}, name: mine}\n  - fuse: {runs: [bm25, mine]}\n"), "runs[1].jm.lamda"),
    (_edit(TWO_RUNS, JM, "  - jm: {lamda: 0.1}\n  - fuse: {runs: [bm25, jm]}\n"), "runs[1].jm.lamda"),
    # ... nor "no model of `runs` has more than one setting" for cross-validation
    (
        _edit(TWO_RUNS, "lambda: 0.1", "lamda: [0.1, 0.5]", "compare: {}", "compare: {cross_validation: {folds: 2}}"),
        "runs[1].jm.lamda",
    ),
    # a name that is no file name: expect naming it is not "not a run name" too
    (_edit(TWO_RUNS, JM, "  - {jm: {lambda: 0.1}, name: a/b}\n") + "expect: {a/b: {AP: 0.1}}\n", "runs[1].name"),
    # a misspelt key counts as given: no "measures/compare need qrels", "required key is missing"
    (_edit(TWO_RUNS, "qrels:", "qrel:") + "measures: [AP]\n", "qrel"),
    (_edit(TWO_RUNS, "name: t", "nmae: t"), "nmae"),
    (_edit(TWO_RUNS, "runs:", "run:") + "expect: {bm25: {AP: 0.1}}\n", "run"),
    (_edit(TWO_RUNS, "topics:", "topic:"), "topic"),
    (_edit(TWO_RUNS, "collection:", "colection:"), "colection"),
    (_edit(TWO_RUNS, "{path: /", "{pth: /"), "collection.pth"),  # not "give one of `path` or `irds`"
    (_edit(TWO_RUNS, "format: text-folder", "fromat: text-folder"), "collection.fromat"),
    (_edit(TWO_RUNS, "compare: {}", "measure: [AP, Rprec]\ncompare: {measures: [Rprec]}"), "measure"),
    (_edit(TWO_RUNS, "compare: {}", "execution: {engin: dask, workers: 2}"), "execution.engin"),
    # a bad measure: compare.measures and expect are not checked against the measures again
    (_edit(TWO_RUNS, "compare: {}", "measures: [AP, nDGC@10]\ncompare: {measures: [AP]}"), "measures[1]"),
    (_edit(TWO_RUNS, "compare: {}", "measures: [nDGC@10]\nexpect: {bm25: {AP: 0.1}}"), "measures[0]"),
    # a section of the wrong kind (these raised a TypeError and an AttributeError)
    (
        _edit(TWO_RUNS, "lambda: 0.1", "lambda: [0.1, 0.5]", "compare: {}", "compare: {cross_validation: 5}"),
        "compare.cross_validation",
    ),
    (TWO_RUNS + "execution: 7\n", "execution"),
]
DENSE_TEXT = f"""\
name: d
collection: {{path: {DENSE / "sample100.jsonl.gz"}, format: vectors}}
index: {{vectors: hnsw, quantize: int8, M: 8}}
topics: {{path: {DENSE / "topics.msmarco-passage-dev-openai-ada2.jsonl"}, format: vectors}}
runs: [knn]
output: out
"""
CHAINS += [
    # a bad collection format: not "vectors need a `vectors` collection", "knn runs need ..."
    (_edit(DENSE_TEXT, "format: vectors}\nindex", "format: vector}\nindex"), "collection.format"),
    # a bad index.vectors: not "M is a setting of the HNSW graph"
    (_edit(DENSE_TEXT, "vectors: hnsw", "vectors: hnws"), "index.vectors"),
]


@pytest.mark.parametrize("text, key", CHAINS)
def test_a_mistake_is_reported_without_its_consequences(tmp_path, text, key):
    got = _problems(tmp_path, yaml.safe_load(text))
    assert [p.path for p in got] == [key], [str(p) for p in got]


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("jm: {lambda", "dirichelt: {lambda", "runs[1]: unknown model 'dirichelt'; did you mean 'dirichlet'?"),
        ("lambda: 0.1", "lamda: 0.1", "runs[1].jm.lamda: unknown jm parameter 'lamda'; did you mean 'lambda'?"),
        ("qrels:", "qrel:", "qrel: unknown key 'qrel'; did you mean 'qrels'?"),
    ],
)
def test_validate_prints_the_mistake_alone(tmp_path, old, new, message):
    """The issue's three configs through `harness validate`: one problem each, exit 2."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(_edit(TWO_RUNS, old, new) + "measures: [AP]\n")
    r = subprocess.run(
        [sys.executable, "-m", "harness", "validate", str(cfg)], cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 2, r.stderr
    assert "1 problem(s) in the config" in r.stderr and message in r.stderr, r.stderr
    assert r.stderr.count("\n  - ") == 1 and "needs" not in r.stderr, r.stderr
