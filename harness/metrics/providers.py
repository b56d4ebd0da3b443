"""Who computes each family of the one table (harness.metrics.families): providers, each
reading one kind of judgments and declaring the families it computes (ir_measures' shape: a
provider's supported measures). Each family has exactly one provider, so each measure has one
implementation at run time (tests/test_registry.py checks it):

- :data:`RANKED`: numpy kernels over ranked labels (qrels or rank judgments: every offered
  family but MS MARCO's, and trec_eval's other qrels measures), harness.metrics.kernels and, for the measures
  built on running sums, harness.metrics.trec_segments;
- :data:`PREFERENCES`: trec_eval's preference measures (harness.metrics.trec_prefs);
- :data:`JUDGMENT_GROUPS`: trec_eval's judgment-group measures (harness.metrics.trec_jg: the
  ranked-label kernels over each judgment group, averaged over a topic's groups);
- :data:`MSMARCO`: MS MARCO's official evaluation (msmarco_passage_eval.py), ``MRR(msmarco)``:
  RR@k's kernel over the judged rankings as that script reads them (harness.metrics.msmarco: the
  rank column as written, every qrels line relevant), summed in the run's topic order by
  harness.metrics.evaluate.

A kernel is ``(data, measure, nDCG_threshold) -> float64 per topic`` (``data``: the provider's
shape of the judged run, :class:`harness.metrics.ranked.RankedLabels` for RANKED). A family
whose trec_eval measure computes its whole parameter list in one loop, where a level's value
depends on the levels after it (iprec_at_recall, Rprec_mult, 11pt_avg's levels,
Rprec_mult_avgjg), also has a listed kernel ``(data, rel, levels) -> one array per
level`` with trec_eval's C arithmetic (0/0 is X86_NAN), which `harness trec_eval` calls.
``num_q`` needs none: its value is the number of topics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial

from harness.metrics import kernels, trec_jg, trec_prefs, trec_segments

__all__ = ["Provider", "PROVIDERS", "RANKED", "PREFERENCES", "JUDGMENT_GROUPS", "MSMARCO", "provider", "kernel"]


@dataclass(frozen=True)
class Provider:
    """A computer of some families, from one kind of judgments."""

    name: str
    judgments: str  # as MeasureInfo.judgments: "qrels", "prefs" or "qrels_jg"
    kernels: Mapping[str, Callable]  # family -> kernel
    listed: Mapping[str, Callable] = field(default_factory=dict)  # family -> listed kernel

    @property
    def families(self) -> frozenset[str]:
        return frozenset(self.kernels) | frozenset(self.listed)


_segments = {
    name: trec_segments.kernel(name) for name in ("G", "ndcg_rel", "Rndcg", "infAP", "binG", "yaap", "relstring")
}

RANKED = Provider(
    "numpy kernels over ranked labels",
    "qrels",
    {
        "P": kernels.precision,
        "R": kernels.recall,
        "F1": kernels.f1,
        "AP": kernels.ap,
        "nDCG": kernels.ndcg,
        "RR": kernels.rr,
        "Rprec": kernels.rprec,
        "bpref": kernels.bpref,
        "Success": kernels.success,
        "IPrec": kernels.iprec,
        "11pt": kernels.eleven_point,
        "NumRet": kernels.num_ret,
        "NumRel": kernels.num_rel,
        "NumRelRet": kernels.num_rel_ret,
        "SetP": kernels.set_precision,
        "SetR": kernels.set_recall,
        "SetF": kernels.set_f,
        "SetAP": kernels.set_ap,
        "Judged": kernels.judged,
        "DCG": kernels.dcg,
        "CG": kernels.cg,
        "gm_map": kernels.ap,
        "gm_bpref": kernels.bpref,
        "utility": kernels.utility,
        "relative_P": kernels.relative_precision,
        "set_relative_P": kernels.set_relative_precision,
        "num_nonrel_judged_ret": kernels.num_nonrel_judged_ret,
        **_segments,
    },
    {
        "IPrec": partial(kernels.interpolated_precision, nan=True),
        "11pt": partial(kernels.eleven_point_at, nan=True),
        "Rprec_mult": kernels.rprec_mult,
    },
)
PREFERENCES = Provider(
    "trec_eval's preference counts", "prefs", {name: trec_prefs.kernel for name in trec_prefs.PREFS_MEASURES}
)
JUDGMENT_GROUPS = Provider(
    "trec_eval's judgment groups",
    "qrels_jg",
    {"map_avgjg": trec_jg.map_avgjg, "P_avgjg": trec_jg.p_avgjg},
    {"Rprec_mult_avgjg": trec_jg.rprec_mult_avgjg},
)
# the script's reciprocal rank is RR@k's, once its reading has made the judged rankings (all of
# the difference from trec_eval's RR@k is in that reading and in the sum's order)
MSMARCO = Provider("MS MARCO's official evaluation (msmarco_passage_eval.py)", "qrels", {"MRR(msmarco)": kernels.rr})
PROVIDERS = (RANKED, PREFERENCES, JUDGMENT_GROUPS, MSMARCO)

_BY_FAMILY = {family: p for p in PROVIDERS for family in p.families}


def provider(family: str) -> Provider:
    """The provider of ``family`` (KeyError for num_q, which has none, or a name not in the table)."""
    return _BY_FAMILY[family]


def kernel(family: str) -> Callable:
    """The kernel of ``family``: (data, measure, nDCG_threshold) -> values per topic."""
    return _BY_FAMILY[family].kernels[family]
