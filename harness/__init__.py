"""harness: a Lucene-backed retrieval experiment harness.

Importing it is instant and needs no Java: the JVM starts on first use, in ``harness.engine.lucene``.
The Python API (``harness.run``, ``evaluate``, ``compare``, ``query``, ``analyze``, ``fuse``,
``reproduce``, ``cache``, ``similarities``, ``measures``; see :mod:`harness.api`) is loaded on
first attribute access, so ``import harness`` imports neither pandas nor scipy.
"""

from harness import lazy

__version__ = "0.1.0"

_API = (
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
)
__all__ = [*_API, "__version__"]
# Former names, still resolved for one release; each warns when called (harness.api)
_DEPRECATED = ("search",)

# The API loads the pipeline (numpy, the verbs and what they run): the first of its names read
# loads it (harness.lazy), so `import harness` stays instant (bench/bench_import.py times both).
_api = lazy.module("harness.api")


def __getattr__(name: str):
    if name in _API or name in _DEPRECATED:
        return getattr(_api, name)
    raise AttributeError(f"module 'harness' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_API})
