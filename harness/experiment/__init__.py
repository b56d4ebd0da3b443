"""Experiments: the plan (what is reused, by content hash), its execution, and the comparisons of
an experiment's runs. Rendering is ``harness.report``'s job."""

from harness.experiment.execute import run_experiment
from harness.experiment.plan import RUN_CACHE, SEARCH_SEMANTICS, Plan, indexes_root, plan, run_key
from harness.experiment.result import RECALL_LEVELS, Check, ExperimentResult, RunResult

__all__ = [
    "Plan",
    "RunResult",
    "Check",
    "ExperimentResult",
    "plan",
    "run_experiment",
    "run_key",
    "indexes_root",
    "SEARCH_SEMANTICS",
    "RUN_CACHE",
    "RECALL_LEVELS",
]
