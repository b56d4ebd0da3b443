"""The verbs about the harness itself: doctor (versions, does the JVM start) and schema (the JSON
Schema of configs, for editors)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from harness.config.json_schema import json_schema
from harness.engine import lucene
from harness.errors import EngineError
from harness.metrics import MEASURES

__all__ = ["DoctorReport", "doctor", "schema", "measure_registry"]


@dataclass(frozen=True)
class DoctorReport:
    versions: dict[str, str]
    jvm: str  # "started in 0.41 s" or "FAILED: ..."
    ok: bool


def doctor() -> DoctorReport:
    t = time.perf_counter()
    try:
        lucene.jclass("harness.BatchSearcher")
        jvm = f"started in {time.perf_counter() - t:.2f} s"
    except EngineError as e:
        jvm = f"FAILED: {e}"
    return DoctorReport(lucene.versions(jvm=lucene.started()), jvm, lucene.started())


def measure_registry() -> dict:
    """measure name -> MeasureInfo (the metrics' registry)."""
    return MEASURES


def schema() -> dict:
    return json_schema()
