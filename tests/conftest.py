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
    return ensure_index(corpus, IndexOptions(), tmp_path_factory.mktemp("idx") / "cranfield", log=lambda m: None)


@pytest.fixture(scope="session")
def cranfield_topics():
    from harness.formats.topics import read_topics

    return read_topics(shared_path("collections", "cranfield", "topics.tsv"))
