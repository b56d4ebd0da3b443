"""Upper bounds that the config (and the CLI) check before anything runs, so that no value that
passes ``validate`` fails later inside Java or exhausts memory. Each says why it is what it is.

- ``depth`` <= 2**31 - 1: Lucene takes the number of hits as a Java ``int``. Above the number
  of documents in the index it changes nothing: the search returns at most every document
  (``harness.engine.search`` caps it there, as Lucene's ``IndexSearcher`` does).
- ``index.threads`` <= 1,024 (an error above); above 4 x the machine's cores it is lowered to
  4 x cores with a warning: more threads than that only add contention, and a config written
  on a large server should still run on a laptop.
- ``execution.workers`` and ``execution.index_shards`` <= 1,024 (``harness.policies.MAX_WORKERS``,
  also ``--workers``): each worker is a process with its own JVM on this machine, and a shard
  an index merged into one.
- ``compare.permutations`` and ``compare.bootstrap_samples`` <= 10,000,000: p-values resolve to
  1e-7, and each resample costs memory and time per pair and measure (10**12 would not finish).
- Similarity parameters must be finite and keep their legal range *as Java floats* (Lucene's
  similarities take ``float``): ``k1: 1e39`` is infinite there, ``lambda: 1e-50`` is 0
  (``harness.specs.params.ParamSpec.check``).
- A config file holds at most 16 MiB (``MAX_CONFIG_BYTES``): a config is a short text file,
  and PyYAML reads about 1.5 MB a second, so a file given as the config by mistake (a corpus,
  a run, ``/dev/zero``) is refused at once rather than parsed for minutes or read into memory.
- ``runs`` expand to at most 100,000 settings (``MAX_RUNS``), counted before a grid is expanded:
  each is a search of every topic and a run file, and a grid of a few long lists (10**12
  combinations) would otherwise fill the memory while ``validate`` expands it.
"""

from __future__ import annotations

import os

from harness.errors import warn
from harness.policies import MAX_RESAMPLES

__all__ = [
    "JAVA_INT_MAX",
    "MAX_DEPTH",
    "MAX_THREADS",
    "MAX_RESAMPLES",
    "MAX_CONFIG_BYTES",
    "MAX_RUNS",
    "threads_for_machine",
]

JAVA_INT_MAX = 2**31 - 1
MAX_DEPTH = JAVA_INT_MAX
MAX_THREADS = 1024
MAX_CONFIG_BYTES = 16 << 20
MAX_RUNS = 100_000


def threads_for_machine(threads: int | None, source: str = "index.threads") -> int:
    """The thread count to use: the number of cores when not given; at most 4 x cores (with a
    warning naming ``source`` when lowered)."""
    cores = os.cpu_count() or 1
    if threads is None:
        return cores
    if threads > 4 * cores:
        warn(f"{source}: {threads} threads on a machine with {cores} cores; using {4 * cores} (4 x cores)")
        return 4 * cores
    return threads
