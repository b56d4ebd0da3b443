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
