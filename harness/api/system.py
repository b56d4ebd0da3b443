"""``harness.similarities`` and ``harness.measures``: the registries as tables; the system verb's
adapter (harness.verbs.system)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness import lazy
from harness.specs.models import MODELS
from harness.verbs.system import measure_registry

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["similarities", "measures"]


def similarities() -> DataFrame:
    """The similarity models and their parameters, from the model registry (harness.specs.models):
    ``model``, ``parameter``, ``default``, ``allowed``, ``doc``."""
    return pd.DataFrame(
        [(m.name, s.name, s.default, s.allowed(), s.doc) for m in MODELS.values() for s in m.params],
        columns=["model", "parameter", "default", "allowed", "doc"],
    )


def measures() -> DataFrame:
    """The measures ``evaluate`` knows, from the metrics registry: ``measure``, ``cutoff``
    (required | optional | none), ``options``, ``trec_eval`` (its name there) and ``doc``."""
    MEASURES = measure_registry()

    def trec(info):
        names = [n for n in (info.trec, info.trec_cut and f"{info.trec_cut}_k") if n]
        return " / ".join(names)

    return pd.DataFrame(
        [(m.name, m.cutoff, ", ".join(m.options), trec(m), m.doc) for m in MEASURES.values()],
        columns=["measure", "cutoff", "options", "trec_eval", "doc"],
    )
