"""The verbs about the harness itself: doctor (versions, does the JVM start) and schema (the JSON
Schema of configs, for editors)."""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["DoctorReport", "doctor", "schema", "similarity_models", "similarity_aliases", "measure_registry"]


@dataclass(frozen=True)
class DoctorReport:
    versions: dict[str, str]
    jvm: str  # "started in 0.41 s" or "FAILED: ..."
    ok: bool


def doctor() -> DoctorReport:
    from harness.engine import lucene
    from harness.errors import EngineError

    t = time.perf_counter()
    try:
        lucene.jclass("harness.BatchSearcher")
        jvm = f"started in {time.perf_counter() - t:.2f} s"
    except EngineError as e:
        jvm = f"FAILED: {e}"
    return DoctorReport(lucene.versions(jvm=lucene.started()), jvm, lucene.started())


def similarity_models() -> dict:
    """model -> its parameter specs (the engine's registry)."""
    from harness.engine.similarity import MODELS

    return MODELS


def similarity_aliases() -> dict:
    """Anserini's and Pyserini's model names -> the model each is (``qld`` -> ``dirichlet``)."""
    from harness.engine.similarity import ALIASES

    return ALIASES


def measure_registry() -> dict:
    """measure name -> MeasureInfo (the metrics' registry)."""
    from harness.metrics import MEASURES

    return MEASURES


def schema() -> dict:
    from harness.config.json_schema import json_schema

    return json_schema()
