"""The Python API: the harness in a notebook, with pandas DataFrames in and out.

``import harness`` exposes these lazily (see ``harness/__init__.py``), so importing the package
stays instant; pandas is imported by the first call that makes or reads a DataFrame (harness.lazy).

- :func:`run` — an experiment config (path, YAML string or dict) run exactly as ``harness run``
  (a study of several collections too: a :class:`Study`);
- :func:`evaluate` — a run against qrels (files, DataFrames or dicts): trec_eval's numbers;
- :func:`compare` — paired tests and corrections on per-topic scores from any source;
- :func:`query` — ad-hoc queries against an index (``search``, its former name, warns: it goes
  in the next release);
- :func:`analyze` — the terms Anserini's analyzer for a language makes of a text;
- :func:`fuse` — runs fused into one (rrf, interpolation, average, normalize, combsum, combmnz);
- :func:`reproduce` — how close a reproduction comes to the original experiment (repro_eval's measures);
- :func:`cache` — the run cache as a table, and pruning it (``harness cache``);
- :func:`similarities`, :func:`measures` — the registries as tables.
"""

from harness.api.analyze import analyze
from harness.api.cache import cache
from harness.api.compare import compare
from harness.api.evaluate import evaluate
from harness.api.fuse import fuse
from harness.api.query import query, search  # noqa: F401  search: query's former name, deprecated, not in __all__
from harness.api.reproduce import reproduce
from harness.api.run import Result, Study, run
from harness.api.system import measures, similarities

__all__ = [
    "run",
    "evaluate",
    "compare",
    "query",
    "analyze",
    "fuse",
    "reproduce",
    "cache",
    "similarities",
    "measures",
    "Result",
    "Study",
]
