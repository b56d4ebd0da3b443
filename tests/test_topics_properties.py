"""Property-based tests of the topic readers (hypothesis): random bytes never crash them (a
DataError or topics, nothing else), and what write_topics produces reads back identically."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.errors import DataError, HarnessWarning
from harness.formats.hygiene import id_problem
from harness.formats.topics import is_header, read_topics, write_topics

from .conftest import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _read(data: bytes, fmt: str):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"t.{fmt}"
        path.write_bytes(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HarnessWarning)
            try:
                return read_topics(path, fmt)
            except DataError as e:
                assert str(e).startswith(str(path)), e  # every error names the file
                return None


# Bytes with the characters that matter over-represented: separators, BOM, controls, braces.
_SPECIAL = st.sampled_from(
    [b"\t", b"\n", b"\r", b"\x00", b"\xef\xbb\xbf", b"{", b"}", b'"', b":", b"\\", b" ", b"\xff"]
)
_CHUNKS = st.lists(st.one_of(_SPECIAL, st.binary(max_size=12)), max_size=40).map(b"".join)


@SETTINGS
@given(_CHUNKS)
def test_random_bytes_never_crash_the_tsv_reader(data):
    topics = _read(data, "tsv")
    if topics is not None:
        assert topics and all(id_problem(q) is None and t == t.strip() and t for q, t in topics)


@SETTINGS
@given(_CHUNKS)
def test_random_bytes_never_crash_the_jsonl_reader(data):
    topics = _read(data, "jsonl")
    if topics is not None:
        assert topics and all(id_problem(q) is None and t for q, t in topics)


@SETTINGS
@given(st.binary(max_size=300))
def test_plain_random_bytes(data):
    _read(data, "tsv")
    _read(data, "jsonl")


# What a writer can produce: ids the hygiene rules accept, texts without line breaks or tabs
# (TSV) and without surrounding whitespace (both readers strip it).
_ID = st.text(min_size=1, max_size=20).filter(lambda q: id_problem(q) is None)
_TEXT = (
    st.text(min_size=1, max_size=60)
    .map(lambda t: " ".join(t.split()))
    .filter(lambda t: t and "\t" not in t and len(t.splitlines()) == 1 and t == t.strip())
)


@SETTINGS
@given(
    st.lists(st.tuples(_ID, _TEXT), min_size=1, max_size=15, unique_by=lambda x: x[0]),
    st.sampled_from(["tsv", "jsonl"]),
)
@example([("\ufeff", "0")], "tsv")  # a first id starting with U+FEFF, which the reader drops as a BOM
def test_what_is_written_reads_back_identically(topics, fmt):
    if fmt == "tsv" and is_header(*topics[0]):
        topics = [("0", "x"), *topics] if all(q != "0" for q, _ in topics) else topics[1:] or [("0", "x")]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"t.{fmt}"
        write_topics(path, topics, fmt)
        assert read_topics(path, fmt) == topics


@SETTINGS
@given(_CHUNKS, st.booleans())
def test_random_bytes_never_crash_the_collection_checks(data, gz):
    """check_jsonl and the line counts behind check_complete: a DataError or nothing."""
    import gzip

    from harness.engine import contents
    from harness.engine.corpus import Corpus

    with tempfile.TemporaryDirectory() as tmp:
        name = "d.jsonl.gz" if gz else "d.jsonl"
        # half the gzip cases are valid gzip streams of the random bytes, half raw bytes named .gz
        payload = gzip.compress(data) if gz and len(data) % 2 else data
        (Path(tmp) / name).write_bytes(payload)
        corpus = Corpus(Path(tmp), "jsonl")
        for check in (contents.check_jsonl, contents._count_json_lines, contents._max_json_lines, contents._check_gzip):
            try:
                check(corpus)
            except DataError as e:
                assert name in str(e)
