"""Every default and choice table is harness.policies': the command line's flags, the config
schema's keys and the Python API's signatures expose exactly those values (read by introspection,
so a default written a second time anywhere shows up here)."""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys
from dataclasses import fields

import pytest

from harness import policies
from harness.cli import build_parser
from harness.config.schema import SCHEMA
from harness.policies import ComparePolicy, EvalPolicy, ReadPolicy, ReproducePolicy, StatsPolicy


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def _flags(name: str) -> dict[str, argparse.Action]:
    return {a.dest: a for a in _subparser(name)._actions}


def _key(path: str):
    node = None
    keys = SCHEMA.keys
    for part in path.split("."):
        node = next(k for k in keys if k.name == part)
        keys = node.keys
    return node


EVAL_FLAGS = {"ties": ("ties", policies.TIES), "missing_topics": ("missing_topics", policies.MISSING_TOPICS)}
STATS_FLAGS = {
    "test": policies.TESTS,
    "correction": policies.CORRECTIONS,
    "family": policies.FAMILIES,
    "alpha": None,
    "permutations": None,
    "seed": None,
}


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_evaluation_flags_are_the_policy(command):
    flags = _flags(command)
    for field_name, (dest, table) in EVAL_FLAGS.items():
        assert flags[dest].default == getattr(EvalPolicy(), field_name)
        assert tuple(flags[dest].choices) == tuple(table)
    assert flags["duplicates"].default == ReadPolicy().duplicates
    assert tuple(flags["duplicates"].choices) == tuple(policies.DUPLICATES)


def test_compare_flags_are_the_policy():
    flags = _flags("compare")
    for name, table in STATS_FLAGS.items():
        if name == "correction":  # None: the test's own (policies.default_correction)
            assert flags[name].default is None
            assert policies.default_correction(StatsPolicy.test) == StatsPolicy().correction
            assert policies.default_correction("tukey") == "none"
            continue
        assert flags[name].default == getattr(StatsPolicy(), name), name
        if table is not None:
            assert tuple(flags[name].choices) == tuple(table)
    assert flags["align"].default == ComparePolicy().align
    assert tuple(flags["align"].choices) == tuple(policies.ALIGNMENTS)


def test_config_keys_are_the_policy():
    for name in ("ties", "missing_topics"):
        key = _key(f"evaluation.{name}")
        assert key.default == getattr(EvalPolicy(), name)
    assert _key("evaluation.ties").choices == tuple(policies.TIES)
    assert _key("evaluation.missing_topics").choices == tuple(policies.MISSING_TOPICS)
    for f in fields(StatsPolicy):
        assert _key(f"compare.{f.name}").default == getattr(StatsPolicy(), f.name), f.name
    assert _key("compare.test").choices == tuple(policies.TESTS)
    assert _key("compare.correction").choices == tuple(policies.CORRECTIONS)
    assert _key("compare.family").choices == tuple(policies.FAMILIES)
    assert _key("compare.align").default == ComparePolicy().align
    assert _key("compare.align").choices == tuple(policies.ALIGNMENTS)
    assert _key("compare.cross_validation.folds").default == policies.DEFAULT_FOLDS
    assert _key("measures").default == policies.DEFAULT_MEASURES
    assert _key("depth").default == policies.DEFAULT_DEPTH


def test_api_signatures_are_the_policy():
    import harness

    ev = inspect.signature(harness.evaluate).parameters
    for name in ("ties", "missing_topics", "nDCG_threshold"):
        assert ev[name].default == getattr(EvalPolicy(), name)
    assert ev["duplicates"].default == ReadPolicy().duplicates
    assert ev["measures"].default == policies.DEFAULT_MEASURES
    cmp = inspect.signature(harness.compare).parameters
    for f in fields(StatsPolicy):
        if f.name == "correction":  # None: the test's own (policies.default_correction)
            assert cmp[f.name].default is None
            continue
        assert cmp[f.name].default == getattr(StatsPolicy(), f.name), f.name
    assert cmp["align"].default == ComparePolicy().align
    assert cmp["anova"].default is ComparePolicy().anova is None


def test_reproduce_flags_and_api_are_the_policy():
    import harness

    flags = _flags("reproduce")
    api = inspect.signature(harness.reproduce).parameters
    for name in ("depth", "rbo_p"):
        assert flags[name].default == getattr(ReproducePolicy(), name) == api[name].default, name
    assert flags["run_format"].default == ReadPolicy().run_format == api["run_format"].default
    assert api["measures"].default == policies.DEFAULT_MEASURES
    with pytest.raises(ValueError, match=r"rbo_p must be a number in \(0, 1\)"):
        ReproducePolicy(rbo_p=1)
    with pytest.raises(ValueError, match="depth must be an integer"):
        ReproducePolicy(depth=0)


def test_statistics_functions_default_to_the_policy():
    from harness import stats

    p = StatsPolicy()
    assert inspect.signature(stats.randomization).parameters["permutations"].default == p.permutations
    assert inspect.signature(stats.bootstrap_ci).parameters["level"].default == p.ci_level
    for fn in (stats.randomization, stats.bootstrap_test, stats.bootstrap_ci, stats.cross_validate):
        assert inspect.signature(fn).parameters["seed"].default == p.seed, fn.__name__


def test_policies_validate_their_values():
    with pytest.raises(ValueError, match="align must be one of 'strict', 'common'"):
        ComparePolicy(align="loose")
    with pytest.raises(ValueError, match="duplicates must be one of"):
        ReadPolicy(duplicates="keep")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        StatsPolicy(seed=-1)
    with pytest.raises(ValueError, match=r"permutations must be an integer in \[1, 10,000,000\]"):
        StatsPolicy(permutations=0)


def test_policies_and_the_help_load_no_numpy():
    code = (
        "import sys\nfrom harness.cli import build_parser\nbuild_parser().format_help()\n"
        "import harness.policies\nprint(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
