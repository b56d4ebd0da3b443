"""Experiment configs: a strict YAML schema (``schema``), checked in full before anything runs
(``load``), and the config reference of docs/config.md generated from the same schema (``reference``).

Validation reads the YAML node tree (so every problem can name its line), rejects duplicate and
unknown keys, resolves paths relative to the config file, checks that inputs exist, expands run
sweeps, and collects *every* problem into one :class:`~harness.errors.ConfigError`. It never
starts Java and never imports pyserini or jnius: Anserini's topic readers are listed from the
jar's entries with ``zipfile``. A study (a config of several collections, ``study``) is read as one
such config per collection (:func:`load_experiment`).
"""

from harness.config.execution import Execution
from harness.config.keys import Key
from harness.config.load import load_config
from harness.config.reference import reference_markdown
from harness.config.schema import SCHEMA
from harness.config.study import Study, is_study, load_experiment
from harness.config.validated import CompareSpec, Config, LocatedProblem
from harness.policies import ALL_PAIRS

__all__ = [
    "load_config",
    "load_experiment",
    "Study",
    "is_study",
    "Config",
    "CompareSpec",
    "Execution",
    "reference_markdown",
    "SCHEMA",
    "Key",
    "LocatedProblem",
    "ALL_PAIRS",
]
