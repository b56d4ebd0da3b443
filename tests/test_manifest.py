"""An index folder whose harness-index.json is missing, empty, not JSON or of another shape: a
clear error naming the file, what is wrong and the command that fixes it (exit 2), never a
traceback; the dry run plans and says so; nothing in the folder is touched."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine.manifest import MANIFEST, read_manifest

from .conftest import demo_config, examples

GOOD = {"fingerprint": "ab" * 32, "options": {"stemmer": "porter", "stopwords": True}, "stats": {}, "counters": {}}
BAD = {
    "empty": b"",
    "not JSON": b"{fingerprint: ",
    "a list": b"[1, 2]",
    "a string": b'"index"',
    "no fingerprint": json.dumps({**GOOD, "fingerprint": None}).encode(),
    "stats a list": json.dumps({**GOOD, "stats": []}).encode(),
    "missing keys": json.dumps({"fingerprint": "x"}).encode(),
    "bad stemmer": json.dumps({**GOOD, "options": {"stemmer": 5}}).encode(),
    "not UTF-8": b"\xff\xfe{",
}
WHY = {
    "empty": "is empty",
    "not JSON": "is not JSON",
    "a list": "holds a JSON list",
    "a string": "holds a JSON str",
    "no fingerprint": "'fingerprint' that is not a non-empty string",
    "stats a list": "'stats' that is not a mapping",
    "missing keys": "has no 'options'",
    "bad stemmer": "index options the harness does not write",
    "not UTF-8": "is not JSON",
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_manifest_is_named_with_what_is_wrong(tmp_path, case):
    (tmp_path / MANIFEST).write_bytes(BAD[case])
    manifest, why = read_manifest(tmp_path)
    assert manifest is None and WHY[case] in why


def test_a_good_manifest_and_none(tmp_path):
    assert read_manifest(tmp_path) == (None, None)
    (tmp_path / MANIFEST).write_text(json.dumps(GOOD))
    assert read_manifest(tmp_path) == (GOOD, None)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.floats() | st.text(),
            lambda c: st.lists(c) | st.dictionaries(st.text(), c),
            max_leaves=20,
        ).map(lambda v: json.dumps(v).encode()),
    )
)
def test_no_content_gives_a_traceback(tmp_path_factory, content):
    folder = tmp_path_factory.mktemp("m")
    (folder / MANIFEST).write_bytes(content)
    manifest, why = read_manifest(folder)
    assert (manifest is None) != (why is None)
    if manifest is not None:
        assert isinstance(manifest["fingerprint"], str) and isinstance(manifest["stats"], dict)


def _harness(*args, cwd):
    env = {"HARNESS_JAVA_OPTS": "-Xno-such-option", "PATH": "/usr/bin:/bin"}  # none of this starts Java
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("case", ["empty", "a list", "no fingerprint"])
def test_run_stops_with_exit_2_and_dry_run_plans(tmp_path, case):
    cfg = demo_config(tmp_path)
    index = tmp_path / "index"
    index.mkdir()
    (index / MANIFEST).write_bytes(BAD[case])
    (index / "segments_1").write_bytes(b"lucene")
    before = {p.name: p.read_bytes() for p in index.iterdir()}
    r = _harness("run", str(cfg), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"{index / MANIFEST}: {MANIFEST} " in r.stderr and WHY[case] in r.stderr
    assert f"rm -r '{index}'" in r.stderr and "Traceback" not in r.stderr
    assert {p.name: p.read_bytes() for p in index.iterdir()} == before
    plan = _harness("run", "--dry-run", str(cfg), cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert "is not a usable harness index" in plan.stdout and "run       bm25" in plan.stdout
