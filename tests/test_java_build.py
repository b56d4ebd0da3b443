"""The committed BatchSearcher.class was compiled from the committed source (scripts/build_java.py
records the source's SHA-256 beside the class when it compiles it)."""

import hashlib

from harness.engine.lucene import JAVA_DIR


def test_class_matches_source():
    source = (JAVA_DIR / "BatchSearcher.java").read_bytes()
    recorded = (JAVA_DIR / "BatchSearcher.sha256").read_text().strip()
    assert hashlib.sha256(source).hexdigest() == recorded, "run `make java` after editing BatchSearcher.java"
    cls = (JAVA_DIR / "harness" / "BatchSearcher.class").read_bytes()
    assert cls[:4] == b"\xca\xfe\xba\xbe" and int.from_bytes(cls[6:8], "big") == 61  # Java 17 bytecode
