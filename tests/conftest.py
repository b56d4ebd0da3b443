"""Shared fixtures. The shared data (Cranfield, the course lab's cases) sits beside the
repository as ../shared, in CI too; a test that needs it fails loudly when it is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CRANFIELD = SHARED / "collections" / "cranfield"

# The built Docker image is checked by `make docker-test` (scripts/docker-test.sh builds it and
# names it in $HARNESS_DOCKER_IMAGE, then runs this module); the plain suite has no image.
collect_ignore = [] if os.environ.get("HARNESS_DOCKER_IMAGE") else ["test_docker_image.py"]

# Markers (pyproject.toml) for `make test-quick`, which runs what needs no JVM, browser, Dask,
# Docker or minutes: whole modules by name, and any test that uses a fixture that starts Java.
# Tests in other modules that start Java carry @pytest.mark.java themselves; test-quick runs with
# a JVM option no Java accepts, so an unmarked one fails loudly instead of passing slowly.
MODULE_MARKS = {
    "test_accurate_bm25": ("java",),
    "test_api": ("java",),
    "test_dask": ("java", "dask"),
    "test_dask_faults": ("java", "dask"),
    "test_docker": ("docker",),
    "test_disk_full": ("java",),
    "test_docker_image": ("docker",),
    "test_exit_codes": ("java",),
    "test_explorer": ("java",),
    "test_faults": ("java",),
    "test_fresh_clone": ("java", "slow"),
    "test_golden": ("java", "slow"),
    "test_hostile_inputs": ("java",),
    "test_index": ("java",),
    "test_languages": ("java",),
    "test_judge_browser": ("java", "browser"),
    "test_kill_points": ("java",),
    "test_lab": ("java",),
    "test_long_queries": ("java",),
    "test_models": ("java",),
    "test_models_exact": ("java",),
    "test_notebook": ("java", "slow"),
    "test_permissions": ("java",),
    "test_pipeline": ("java",),
    "test_readme": ("java",),
    "test_report": ("java", "browser"),
    "test_report_plots": ("java", "browser"),
    "test_report_width": ("java", "browser"),
    "test_search": ("java",),
}
JAVA_FIXTURES = {"cranfield_index", "cli_and_api", "searched", "sweep", "cranfield_sweep"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        for mark in MODULE_MARKS.get(module, ()):
            item.add_marker(mark)
        if JAVA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("java")


def shared_path(*parts: str) -> Path:
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.fail(f"{p} is missing: the tests need ../shared beside the repository")
    return p


@pytest.fixture(scope="session")
def cranfield_index(tmp_path_factory):
    """Cranfield indexed once per test session with Anserini's defaults."""
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index

    corpus = Corpus(shared_path("collections", "cranfield", "corpus.jsonl"), "jsonl")
    return ensure_index(corpus, IndexOptions(), tmp_path_factory.mktemp("idx") / "cranfield")


@pytest.fixture(scope="session")
def cranfield_exact_index(tmp_path_factory):
    """Cranfield indexed with exact document lengths (IndexCollection -bm25.accurate), the index
    bm25 accurate=true needs."""
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index

    corpus = Corpus(shared_path("collections", "cranfield", "corpus.jsonl"), "jsonl")
    return ensure_index(corpus, IndexOptions(lengths="exact"), tmp_path_factory.mktemp("idx") / "cranfield-exact")


@pytest.fixture(scope="session")
def cranfield_topics():
    from harness.formats.topics import read_topics

    return read_topics(shared_path("collections", "cranfield", "topics.tsv"))


def demo_config(tmp: Path, extra: str = "") -> Path:
    """configs/demo.yaml written into ``tmp`` with absolute data paths, its index and report in
    ``tmp`` (plus ``extra`` YAML lines); the demo as `make demo` runs it, elsewhere."""
    text = (REPO / "configs" / "demo.yaml").read_text()
    text = text.replace("../corpora", str(REPO / "corpora")).replace("../topics", str(REPO / "topics"))
    text = text.replace("../qrels", str(REPO / "qrels")).replace("../reports/demo", str(tmp / "report"))
    text = text.replace("index: {stemmer: porter, stopwords: true}", f"index: {{path: {tmp / 'index'}}}")
    (tmp / "demo.yaml").write_text(text + extra)
    return tmp / "demo.yaml"


def report_run(report: Path, label: str) -> Path:
    """The file of the run labelled ``label`` in a report folder, as its manifest.json maps it
    (run files are named by harness.engine.labels.run_file_names, not by the label itself)."""
    import json

    runs = json.loads((report / "manifest.json").read_text(encoding="utf-8"))["runs"]
    return report / next(r["file"] for r in runs if r["name"] == label)


def write_full_report(result, out):
    """What the run verb does after an experiment: runs by their labels, then what the report
    shows from Lucene (the explorer's documents, the versions), then the report."""
    from harness.experiment.explore import attach
    from harness.experiment.labels import relabel
    from harness.report import write_report

    return write_report(attach(relabel(result)), out)


def tiny_report(tmp: Path, name: str, corpus_jsonl: str, topics_tsv: str):
    """A one-run (BM25) experiment on a few JSON-lines documents, report written; its config."""
    from harness.config import load_config
    from harness.experiment import run_experiment

    (tmp / "corpus.jsonl").write_text(corpus_jsonl, encoding="utf-8")
    (tmp / "topics.tsv").write_text(topics_tsv, encoding="utf-8")
    (tmp / "c.yaml").write_text(
        f"name: {name}\ncollection: {{path: corpus.jsonl, format: jsonl}}\nindex: {{path: index}}\n"
        "topics: topics.tsv\nruns: [{bm25: {}}]\noutput: report\n"
    )
    cfg = load_config(tmp / "c.yaml")
    write_full_report(run_experiment(cfg), cfg.output)
    return cfg


def explorer_data(page: str) -> dict:
    """The topic explorer's JSON of a report.html (harness.report.explorer), as the page's script
    reads it."""
    import json
    import re

    found = re.search(r'<script type="application/json" id="explorer-data">(.*?)</script>', page, re.S)
    assert found, "no explorer data in the page"
    return json.loads(found.group(1))


def marked(data: dict) -> list[str]:
    """Every highlighted piece of the explorer's snippets, topic by topic, document by document."""
    return [s[i] for t in data["topics"] for _, _, s in t["docs"] if s for i in range(2, len(s), 2) if s[i]]
