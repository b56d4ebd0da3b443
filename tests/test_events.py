"""Typed progress events (harness.events) and the command line's renderer of them: the text of
each event is the line users saw before; the bars follow the events' types, not their text."""

from __future__ import annotations

import io

from harness import events as ev
from harness.cli import progress
from harness.cli.progress import EventRenderer


class Tty(io.StringIO):
    def isatty(self):
        return True


def _bars(monkeypatch) -> list:
    made = []
    real = progress.Progress

    class Recording(real):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(progress, "Progress", Recording)
    return made


def test_a_rebuild_then_a_cross_validated_sweep_draws_one_bar_with_the_right_total(monkeypatch):
    bars = _bars(monkeypatch)
    n = 3
    stream = Tty()
    with EventRenderer(stream) as on:
        on(ev.RunsPlanned(n + 1))
        on(ev.IndexRebuild("/i"))
        assert on.bar is None  # a rebuild is a line, not the searching bar
        on(ev.IndexBuild("/c", "jsonl", "/i"))
        on(ev.IndexReady("/i", False, 10, 20))
        for i in range(n):
            on(ev.RunReady(f"dirichlet(mu={i})", "searched", 5, 0.1))
        on(ev.RunReady("dirichlet(cv:AP,folds=2,seed=42)", "assembled", chosen="a, b"))
        [bar] = bars
        assert (bar.total, bar.done) == (n + 1, n + 1)
    text = stream.getvalue()
    assert "index /i: fingerprint changed, rebuilding" in text
    assert "run dirichlet(cv:AP,folds=2,seed=42): assembled from the folds' choices (a, b)" in text
    assert f"{n + 1}/{n + 1}" in text and f"{n + 2}/{n + 1}" not in text


def test_without_a_terminal_the_events_are_plain_lines(monkeypatch):
    stream = io.StringIO()
    with EventRenderer(stream) as on:
        for e in (
            ev.RunsPlanned(1),
            ev.Waiting("/out", 42),
            ev.IndexReady("/i", True, 45, 1220),
            ev.DepthNote(1000, 45),
            ev.RunReady("bm25", "reused", 15, 0.012, empty=2),
            ev.Compared(1, 2, 0, "paired t-test"),
        ):
            on(e)
    assert stream.getvalue().splitlines() == [
        "waiting for another harness process (pid 42) that is writing /out ...",
        "index reused: /i (45 documents, 1220 terms)",
        "note: depth 1000 exceeds the 45 documents of the index: a topic returns at most all of them",
        "run bm25: reused 15 topics in 0.01 s (2 returned nothing)",
        "compared 1 pair(s) on 2 measure(s): 0 significant (paired t-test)",
    ]


def test_events_import_nothing_heavy():
    import subprocess
    import sys

    code = "import sys, harness.events; print([m for m in ('numpy', 'harness.errors') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------- long phases (issue 37)
def test_rate_and_time_left_of_a_phase():
    assert ev.rate_text(3500, 6980, 2.0, "topics") == "3,500/6,980 topics, 1,750 topics/s, 2 s left"
    assert ev.rate_text(2_000_000, 8_841_823, 1000.0, "documents") == (
        "2,000,000/8,841,823 documents, 2,000 documents/s, 57 min 01 s left"
    )
    assert ev.rate_text(0, 100, 0.0, "topics") == "0/100 topics"  # no rate before the first
    assert ev.rate_text(50, None, 5.0, "documents") == "50 documents, 10 documents/s"
    assert str(ev.Progress("indexing", 1, 2, 0.5, "documents")) == ""  # nothing in a log


def test_indexing_and_searching_show_rate_and_time_left_on_a_terminal():
    stream = Tty()
    with EventRenderer(stream) as on:
        on(ev.RunsPlanned(1))
        on(ev.IndexBuild("/c", "jsonl", "/i"))
        on(ev.Progress("indexing", 120_000, 8_841_823, 60.0, "documents"))
        assert on.spinner is None and on.indexing.done == 120_000
        on(ev.IndexReady("/i", False, 8_841_823, 99))
        assert on.indexing is None
        on(ev.Progress("searching bm25", 3500, 6980, 2.0, "topics"))
        on(ev.RunReady("bm25", "searched", 6980, 4.0))
        assert on.bar.label == "searching"
    text = stream.getvalue()
    assert "indexing (120,000/8,841,823 documents, 2,000 documents/s, 1 h 12 min left) [" in text
    assert "120000/8841823 documents" in text
    assert "searching bm25: 3,500/6,980 topics, 1,750 topics/s, 2 s left [" in text


def test_without_a_terminal_long_phases_say_nothing():
    stream = io.StringIO()
    with EventRenderer(stream) as on:
        on(ev.RunsPlanned(1))
        on(ev.IndexBuild("/c", "jsonl", "/i"))
        on(ev.Progress("indexing", 120_000, 8_841_823, 60.0, "documents"))
        on(ev.IndexReady("/i", False, 8_841_823, 99))
        on(ev.Progress("searching bm25", 3500, 6980, 2.0, "topics"))
        on(ev.RunReady("bm25", "searched", 6980, 4.0))
    assert stream.getvalue().splitlines() == [
        "indexing /c (jsonl) -> /i",
        "index built: /i (8841823 documents, 99 terms)",
        "run bm25: searched 6980 topics in 4.00 s",
    ]
