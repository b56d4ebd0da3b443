"""The local executor: today's path, in this process (one JVM, one searcher, `threads` threads)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from harness.engine.index import IndexInfo, build_here
from harness.engine.latency import SearchTimes
from harness.engine.searchers import open_searcher
from harness.events import Emit, Progress, ignore
from harness.formats.run import Run
from harness.specs.similarity import Similarity

__all__ = ["LocalExecutor"]


class LocalExecutor:
    build = staticmethod(build_here)

    def __init__(self, on: Emit = ignore):
        self.on = on

    def describe(self) -> str:
        return "local"

    def search_runs(
        self, index: IndexInfo, sims: Sequence[Similarity], topics: list[tuple[str, Any]], depth: int, threads: int
    ) -> Iterator[tuple[Similarity, Run, float, SearchTimes]]:
        """(sim, run, seconds, times) per run in `sims` order, each a columnar
        :class:`~harness.formats.run.Run` straight from the batch's arrays (no Python object per
        hit), ``times`` what the searcher measured (:class:`~harness.engine.latency.SearchTimes`:
        one batch on ``threads`` threads, two for an impact run mixing texts and term weights)."""
        if not sims:
            return  # everything cached: no JVM
        searcher = open_searcher(index.path, index.options)
        try:
            for sim in sims:
                t = time.perf_counter()

                def progress(done: int, sim=sim, t=t) -> None:
                    self.on(Progress(f"searching {sim}", done, len(topics), time.perf_counter() - t, "topics"))

                run, times = searcher.timed_run(topics, sim, depth, threads=threads, progress=progress)
                yield sim, run, time.perf_counter() - t, times
        finally:
            searcher.close()

    def close(self) -> None:
        pass
