"""A report's run files are named without spaces or anything a shell needs quoted, one file per
name, deterministically (harness.specs.names.run_file_names); the manifest maps each name to
its file (issue 36: `runs/bm25 k1=0.9.trec` had to be quoted in every command)."""

from __future__ import annotations

import re
import shlex
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.specs.names import run_file_names

from .conftest import examples

# a shell's metacharacters, quotes, globs, whitespace, and what Windows forbids in a file name
SHELL_OR_WINDOWS = set(" \t\n\r\"'`$&|;<>()[]{}*?!~#%^\\/:,")


def test_the_demos_and_the_sweeps_names():
    names = ["bm25", "dirichlet mu=500", "bm25 k1=0.9 b=0.4", "dirichlet tuned", "rrf(bm25, jm)", "bm25+rm3"]
    assert run_file_names(names) == {
        "bm25": "bm25.trec",
        "dirichlet mu=500": "dirichlet_mu=500.trec",
        "bm25 k1=0.9 b=0.4": "bm25_k1=0.9_b=0.4.trec",
        "dirichlet tuned": "dirichlet_tuned.trec",
        "rrf(bm25, jm)": "rrf_bm25_jm.trec",
        "bm25+rm3": "bm25+rm3.trec",
    }
    assert all(shlex.quote(name) == name for name in run_file_names(names).values())


def test_names_that_would_share_a_file_get_their_digest():
    files = run_file_names(["a b", "a_b", "A_B", "c"])
    assert files["c"] == "c.trec"
    assert [re.fullmatch(r"(a_b|A_B)-[0-9a-f]{8}\.trec", files[x]) is not None for x in ("a b", "a_b", "A_B")] == [
        True
    ] * 3
    assert len({n.casefold() for n in files.values()}) == 4
    # a Windows device name, a name of nothing safe, a name longer than a file name may be
    odd = run_file_names(["con", "…", "x" * 300])
    assert odd["con"] == "con_.trec" and odd["…"] == "run.trec"
    assert re.fullmatch(r"x{91}-[0-9a-f]{8}\.trec", odd["x" * 300])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=12, unique=True))
def test_any_names_get_distinct_safe_file_names(names):
    files = run_file_names(names)
    assert list(files) == names and run_file_names(list(names)) == files  # deterministic
    # one file per name, as macOS and Windows see names too (case, Unicode normalisation)
    assert len({unicodedata.normalize("NFC", n).casefold() for n in files.values()}) == len(names)
    for name in files.values():
        assert name.endswith(".trec") and not name.startswith((".", "-"))
        assert not set(name) & SHELL_OR_WINDOWS, name
        assert all(c.isprintable() for c in name) and len(name.encode()) <= 110, name
