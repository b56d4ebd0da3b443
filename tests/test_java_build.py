"""The committed classes were compiled from the committed sources (scripts/build_java.py records
each source's SHA-256 beside the classes when it compiles them)."""

import hashlib

import pytest

from harness.engine.lucene import JAVA_DIR

SOURCES = sorted(p.stem for p in JAVA_DIR.glob("*.java"))


def test_every_source_is_known():
    assert SOURCES == [
        "AnseriniOrder",
        "BatchSearcher",
        "Documents",
        "EmptyDocs",
        "Expansion",
        "ImpactQueries",
        "IndexInfo",
        "IndexerArgs",
        "IndriTermQuery",
        "KnnSearch",
        "RunText",
        "Similarities",
        "VectorLines",
    ]


@pytest.mark.parametrize("name", SOURCES)
def test_class_matches_source(name):
    source = (JAVA_DIR / f"{name}.java").read_bytes()
    recorded = (JAVA_DIR / f"{name}.sha256").read_text().strip()
    assert hashlib.sha256(source).hexdigest() == recorded, f"run `make java` after editing {name}.java"
    cls = (JAVA_DIR / "harness" / f"{name}.class").read_bytes()
    assert cls[:4] == b"\xca\xfe\xba\xbe" and int.from_bytes(cls[6:8], "big") == 61  # Java 17 bytecode


def test_no_checksum_or_class_without_its_source():
    """A source split or removed leaves neither its checksum nor its compiled class behind."""
    assert sorted(p.stem for p in JAVA_DIR.glob("*.sha256")) == SOURCES
    classes = {p.stem.split("$")[0] for p in (JAVA_DIR / "harness").glob("*.class")}
    assert sorted(classes) == SOURCES
