"""Experiments: the plan (what is reused, by content hash), its execution, and the comparisons of
an experiment's runs. Rendering is ``harness.report``'s job."""

from harness.experiment.execute import Session, run_experiment, session
from harness.experiment.plan import RUN_CACHE, Plan, indexes_root, plan
from harness.experiment.result import RECALL_LEVELS, Check, ExperimentResult, RunResult
from harness.experiment.store import SEARCH_SEMANTICS, RunStore, run_key

__all__ = [
    "Plan",
    "RunResult",
    "Check",
    "ExperimentResult",
    "plan",
    "run_experiment",
    "session",
    "Session",
    "RunStore",
    "run_key",
    "indexes_root",
    "SEARCH_SEMANTICS",
    "RUN_CACHE",
    "RECALL_LEVELS",
]
