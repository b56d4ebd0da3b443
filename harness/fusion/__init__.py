"""Run fusion: several runs in, one run out, vectorised with numpy (no Python loop per line).

pyserini.fusion 2.4.0's four methods give the same documents, order and float64 scores as
pyserini (tests/test_fuse.py checks it line by line), and combsum / combmnz add weights and
normalisations. The registry of methods and normalisations is harness.policies'
(FUSION_METHODS, NORMALIZATIONS); here each method is a module and :data:`METHODS` the dispatch
table (methods.py), as in ranx's fusion/. The rules, each as pyserini has them:

1. Each run is rescored whole by its method (rrf.py, interpolation.py, average.py,
   normalize.py, combsum.py, combmnz.py); a normalisation (norms.py) is per topic over *all*
   the topic's rows, before the cut.
2. Each run is cut to its first ``depth`` rows per topic, in file order.
3. A document's score is the sum over the runs that return it, in the runs' order, as pandas
   sums pyserini's groups (sums.py); combmnz multiplies it by the number of those runs.
4. Each topic is sorted by score descending, then doc id ascending (byte order), and cut to
   ``k`` documents; ranks are 1..n (fused.py, order.py).

Where the harness differs: topic ids stay as written (pyserini reads them with pandas, so
``001`` becomes ``1``, and ``1`` and ``001`` would be one topic); topics come in numeric order
when every id is an integer, else in string order (pyserini's order for its parsed ids). A
document listed twice in one run is an error (pyserini sums both rows). See docs/semantics.md.
"""

from harness.fusion.fused import fuse
from harness.fusion.methods import METHODS
from harness.fusion.norms import NORMS

__all__ = ["fuse", "METHODS", "NORMS"]
