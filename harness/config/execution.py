"""The `execution:` block's values: where indexing and searching run (local, or a Dask
cluster), and what a scheduler address may be (the config's `execution.scheduler` and the
command line's --scheduler)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Execution", "ENGINES", "SCHEDULER_PATTERN", "scheduler_problem"]

ENGINES = ("local", "dask")
# A Dask scheduler address: protocol://host:port (dask's own protocols) or host:port.
SCHEDULER_PATTERN = r"((tcp|tls|ucx|ws|wss|inproc)://)?\[?[\w.:-]+\]?(:\d+)?/?"
_SCHEDULER = re.compile(SCHEDULER_PATTERN)


def scheduler_problem(address: str) -> str | None:
    """Why `address` is not a Dask scheduler address, or None (also used for --scheduler)."""
    if not _SCHEDULER.fullmatch(address) or address.endswith("://"):
        return (
            f"must be a Dask scheduler address like tcp://host:8786 "
            f"(tcp, tls, ucx, ws, wss or inproc; or host:port) (got {address!r})"
        )
    return None


@dataclass(frozen=True)
class Execution:
    """The validated `execution:` block: where indexing and searching run. Nothing here enters
    an index fingerprint or a run's cache key: a run is the same wherever it was computed."""

    engine: str = "local"
    scheduler: str | None = None  # a running scheduler's address
    workers: int | None = None  # LocalCluster size (dask, no scheduler); None: CPU cores
    index_shards: int | None = None  # None: the cluster's worker threads
    topics_per_task: int | None = None  # None: chosen from the cluster size
    timeout: float = 10.0

    def __str__(self) -> str:
        if self.engine == "local":
            return "local"
        if self.scheduler:
            return f"dask (scheduler {self.scheduler})"
        return (
            f"dask (LocalCluster, {self.workers} workers)" if self.workers else "dask (LocalCluster, a worker per core)"
        )
