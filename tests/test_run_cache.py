"""Each hit stored once (issue 37): the run cache keeps a run's TREC text and a compact binary
copy; reports hard-link the text; `harness cache` lists and prunes only what the harness made."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil

import numpy as np
import pytest

from harness.cli import main
from harness.engine.search import strictly_decreasing
from harness.experiment.cache import binary_path, cached, load_run, place_text, store_run
from harness.formats.run import Run
from harness.formats.runs import read_run, write_run

from .conftest import demo_config
from .test_run_files import assert_identical, random_run, reference_text


def searched_like(rng, topics=40, depth=1000, docs=10**6) -> Run:
    """A run as the searcher makes it: MS MARCO-like ids, float32 scores rounded to 4 decimals
    with ties, made strictly decreasing as harness.engine.search does."""
    counts = rng.integers(1, depth, size=topics)
    offsets = np.zeros(topics + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    ids = np.concatenate([rng.choice(docs, size=c, replace=False) for c in counts])
    s32 = np.concatenate([np.sort(np.round(rng.gamma(2, 4, size=c), 4))[::-1] for c in counts]).astype(np.float32)
    docids = np.array([str(i).encode() for i in ids.tolist()], dtype="S8")
    return Run([str(q) for q in range(topics)], offsets, docids, strictly_decreasing(s32, offsets[:-1]))


def meta(trec) -> dict:
    import pyarrow.parquet as pq

    return json.loads(pq.read_schema(binary_path(trec)).metadata[b"harness"])


def test_a_searched_run_is_cached_compactly_and_read_back_bit_for_bit(tmp_path):
    run = searched_like(np.random.default_rng(1))
    assert np.any(np.diff(run.scores.astype(np.float32)) == 0)  # ties the float64 scores spread
    trec = tmp_path / "bm25.0123456789abcdef.trec"
    store_run(trec, run, "bm25")
    assert trec.read_text() == reference_text(run, "bm25")
    assert meta(trec)["scores"] == "float32"
    assert_identical(load_run(trec), run)
    # the binary copy: under half the bytes a hit of the former .npz (16), under 0.15x the text
    # (on these random scores; a real run's compress to 3-4 bytes a hit, bench_ladder.py)
    text, binary = trec.stat().st_size, binary_path(trec).stat().st_size
    assert binary / len(run.docids) < 8.0
    assert (text + binary) / text < 1.15


def test_float64_scores_that_are_not_float32_are_kept_as_float64(tmp_path):
    run = random_run(np.random.default_rng(2))
    trec = tmp_path / "x.0123456789abcdef.trec"
    store_run(trec, run, "x")
    assert meta(trec)["scores"] == "float64"
    assert_identical(load_run(trec), run)


def test_a_cache_of_the_previous_version_is_read_from_its_text_and_its_npz_removed(tmp_path):
    run = searched_like(np.random.default_rng(3))
    trec = tmp_path / "bm25.0123456789abcdef.trec"
    write_run(trec, run, "bm25")
    trec.with_suffix(".npz").write_bytes(b"harness-run-cache/1")
    assert cached(trec) and not binary_path(trec).exists()
    assert_identical(load_run(trec), run)
    assert binary_path(trec).exists() and not trec.with_suffix(".npz").exists()
    assert meta(trec)["tag"] == "bm25"


def test_nothing_cached_is_none(tmp_path):
    trec = tmp_path / "bm25.0123456789abcdef.trec"
    assert not cached(trec)
    assert load_run(trec) is None


def test_a_report_holds_a_hard_link_that_survives_the_cache(tmp_path):
    run = searched_like(np.random.default_rng(4))
    trec = tmp_path / "cache" / "bm25.0123456789abcdef.trec"
    store_run(trec, run, "bm25")
    report = tmp_path / "report.trec"
    assert place_text(trec, report, run) is True
    assert os.stat(report).st_ino == os.stat(trec).st_ino and os.stat(trec).st_nlink == 2
    shutil.rmtree(tmp_path / "cache")  # the cache cleared: the report's run is whole
    assert report.read_text() == reference_text(run, "bm25")


def test_a_text_changed_through_a_report_is_written_again_from_the_binary_copy(tmp_path):
    run = searched_like(np.random.default_rng(5))
    trec = tmp_path / "bm25.0123456789abcdef.trec"
    store_run(trec, run, "bm25")
    first = tmp_path / "first.trec"
    place_text(trec, first, run)
    with open(first, "r+b") as fh:  # a user edits the report's file in place: the cache's inode
        fh.seek(0)
        fh.write(b"X")
    assert trec.read_bytes()[:1] == b"X"
    again = load_run(trec)  # the binary copy is the reference, not the changed text
    assert_identical(again, run)
    second = tmp_path / "second.trec"
    place_text(trec, second, again)
    assert second.read_text() == reference_text(run, "bm25")
    assert os.stat(second).st_ino == os.stat(trec).st_ino != os.stat(first).st_ino
    assert first.read_bytes()[:1] == b"X"  # the user's file is left as they made it


def test_a_text_removed_from_the_cache_is_written_again_when_a_report_needs_it(tmp_path):
    run = searched_like(np.random.default_rng(6))
    trec = tmp_path / "bm25.0123456789abcdef.trec"
    store_run(trec, run, "bm25")
    trec.unlink()
    assert cached(trec)
    assert_identical(load_run(trec), run)
    place_text(trec, tmp_path / "r.trec")
    assert (tmp_path / "r.trec").read_text() == reference_text(run, "bm25")


def test_a_users_run_file_is_copied_never_linked(tmp_path):
    run = random_run(np.random.default_rng(7))
    mine = tmp_path / "mine.trec"
    write_run(mine, run, "mine")
    assert place_text(mine, tmp_path / "copy.trec") is False
    assert os.stat(mine).st_nlink == 1 and (tmp_path / "copy.trec").read_bytes() == mine.read_bytes()


# ----------------------------------------------------------------------------- harness cache
def fake_index(root, name="demo-abc", runs=("bm25", "qld")):
    """A folder as the harness leaves one: its manifest and cached runs."""
    index = root / name
    (index / "harness-runs").mkdir(parents=True)
    (index / "harness-index.json").write_text("{}")
    (index / "segments_1").write_bytes(b"x" * 5000)
    rng = np.random.default_rng(8)
    for i, r in enumerate(runs):
        store_run(index / "harness-runs" / f"{r}.{i:016x}.trec", searched_like(rng, topics=5), r)
    return index


def test_cache_lists_sizes_and_prunes_only_its_own_files(tmp_path, capsys):
    index = fake_index(tmp_path / "indexes")
    cache_dir = index / "harness-runs"
    old = dt.datetime(2026, 1, 1).timestamp()
    os.utime(next(cache_dir.glob("bm25.*.parquet")), (old, old))  # last used long ago
    stranger = cache_dir / "notes.txt"  # not the harness's
    stranger.write_text("mine")
    lookalike = tmp_path / "indexes" / "not-an-index" / "harness-runs"  # no manifest: not the harness's
    lookalike.mkdir(parents=True)
    (lookalike / "bm25.0000000000000000.trec").write_text("1 Q0 d 1 1.0 x\n")
    report = tmp_path / "report.trec"
    place_text(next(cache_dir.glob("bm25.*.trec")), report)

    assert main(["cache", str(tmp_path / "indexes"), "--runs"]) == 0
    out = capsys.readouterr().out
    assert f"{index}: index 0.0 MB, 2 cached run(s)" in out
    assert "its text also in 1 report file(s)" in out
    assert "not-an-index" not in out

    assert main(["cache", str(tmp_path / "indexes"), "--unused-since", "2026-06-01", "--dry-run"]) == 0
    assert "would remove 1 run(s) not used since 2026-06-01 00:00" in capsys.readouterr().out
    assert len(list(cache_dir.glob("bm25.*"))) == 2

    assert main(["cache", str(tmp_path / "indexes"), "--unused-since", "2026-06-01"]) == 0
    out = capsys.readouterr().out
    assert "removed 1 run(s)" in out
    assert sorted(p.name.split(".")[0] for p in cache_dir.iterdir()) == ["notes", "qld", "qld"]
    assert stranger.read_text() == "mine" and (lookalike / "bm25.0000000000000000.trec").exists()
    assert report.read_text().startswith("0 Q0 ")  # the report keeps the pruned run's text


def test_cache_counts_a_use_when_a_run_is_reused(tmp_path):
    from harness.verbs.cache import cache

    index = fake_index(tmp_path, runs=("bm25",))
    trec = next((index / "harness-runs").glob("*.trec"))
    old = dt.datetime(2026, 1, 1).timestamp()
    os.utime(binary_path(trec), (old, old))
    load_run(trec)
    (run,) = cache(index).indexes[0].runs
    assert run.last_used > dt.datetime(2026, 6, 1).timestamp()
    assert cache(index, unused_since=dt.datetime(2026, 6, 1)).removed == ()


def test_cache_refuses_a_date_it_cannot_read(tmp_path, capsys):
    assert main(["cache", str(tmp_path), "--unused-since", "last week"]) == 2
    assert "'last week' is not a date: give 2026-11-01, 2026-11-01T12:00 or 30d" in capsys.readouterr().err


# ----------------------------------------------------------------------------- end to end
@pytest.mark.java
def test_harness_run_stores_each_hit_once_and_a_pruned_cache_leaves_the_report_valid(tmp_path, capsys):
    from harness.verbs.cache import cache

    cfg = demo_config(tmp_path)
    assert main(["run", str(cfg)]) == 0
    runs = sorted((tmp_path / "report" / "runs").glob("*.trec"))
    cache_dir = tmp_path / "index" / "harness-runs"
    assert runs
    for r in runs:
        (cached_text,) = [p for p in cache_dir.glob("*.trec") if p.read_bytes() == r.read_bytes()]
        assert os.stat(cached_text).st_ino == os.stat(r).st_ino  # one copy of the text on disk
        assert_identical(read_run(r), load_run(cached_text))
    texts = sum(r.stat().st_size for r in runs)
    binaries = sum(p.stat().st_size for p in cache_dir.glob("*.parquet"))
    seen, stored = set(), 0
    for f in [*cache_dir.iterdir(), *runs]:
        st = os.stat(f)
        if st.st_ino not in seen:
            seen.add(st.st_ino)
            stored += st.st_size
    # the texts once, plus the binary copies: the report adds nothing (on these 45-document runs
    # Parquet's footer is most of a binary copy; 3-4 bytes a hit at MS MARCO's size, bench_ladder)
    assert stored == texts + binaries and len(list(cache_dir.glob("*.parquet"))) == len(runs)
    before = {r.name: r.read_bytes() for r in runs}
    assert len(cache(tmp_path / "index", unused_since=dt.datetime.now() + dt.timedelta(days=1)).removed) == len(runs)
    assert not list(cache_dir.iterdir())
    assert {r.name: r.read_bytes() for r in runs} == before
    assert main(["run", str(cfg)]) == 0  # searched again, the same runs
    assert {r.name: r.read_bytes() for r in sorted((tmp_path / "report" / "runs").glob("*.trec"))} == before


def test_the_python_api_gives_the_same_cache_as_the_command_line(tmp_path, capsys):
    import harness

    index = fake_index(tmp_path / "indexes")
    old = dt.datetime(2026, 1, 1).timestamp()
    os.utime(next((index / "harness-runs").glob("qld.*.parquet")), (old, old))
    frame = harness.cache(tmp_path / "indexes", unused_since="2026-06-01", dry_run=True)
    assert list(frame.columns) == ["index", "run", "key", "bytes", "last_used", "linked", "removed"]
    assert sorted(frame["run"]) == ["bm25", "qld"]
    assert frame.set_index("run")["removed"].to_dict() == {"bm25": False, "qld": True}
    assert (index / "harness-runs" / "qld.0000000000000001.trec").exists()  # a dry run
    assert main(["cache", str(tmp_path / "indexes"), "--runs"]) == 0
    out = capsys.readouterr().out
    for row in frame.itertuples():
        assert f"  {row.run} [{row.key}] {row.bytes / 1e6:,.1f} MB" in out
    harness.cache(tmp_path / "indexes", unused_since=dt.datetime(2026, 6, 1))
    assert sorted(p.name.split(".")[0] for p in (index / "harness-runs").iterdir()) == ["bm25", "bm25"]
