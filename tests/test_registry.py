"""The measure registry owns each measure: its kernel, how trec_eval's "all" line is formed and
what a judged topic the run lacks scores. Every family is checked against an oracle somewhere.

The test that checks a family against an oracle that is not the harness's code says so itself:
``@pytest.mark.oracle("DCG", "CG", by="a plain loop over the ranking")``, the families of the
table (harness.metrics.families) it checks and the oracle it checks them against. This module
reads those marks from the test modules (their source for where the marks stand, the imported
module for the families each names, which may be computed: ``*CHECKED``), so a family the table
gains without a test marked for it fails, as does a mark naming a family the table no longer has,
a marked test pytest does not collect or skips, and a family whose only oracle test was deleted.
"""

from __future__ import annotations

import ast
import importlib
import math
import random
import re
import sys
from pathlib import Path

import pytest

from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import MEASURES, EvalPolicy, evaluate
from harness.metrics.families import FAMILIES
from harness.metrics.providers import PROVIDERS, kernel

from .conftest import collect_ignore

TESTS = Path(__file__).parent
ORACLE = re.compile(r"\bmark\.oracle\(")
SKIPS = ("skip", "skipif", "xfail")


def oracle_tests(folder: Path = TESTS, package: str = __package__) -> tuple[dict[str, list[str]], list[str]]:
    """Each family the oracle marks of ``folder``'s test modules name, with the tests naming it,
    and what is wrong with the marks (each problem with its fix)."""
    found: dict[str, list[str]] = {}
    problems: list[str] = []
    for path in sorted(folder.glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if not ORACLE.search(source):
            continue
        tree = ast.parse(source)
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("mark.oracle")]
        on_functions = {
            node.name: [d for d in node.decorator_list if d in calls]
            for node in tree.body
            if isinstance(node, ast.FunctionDef)
        }
        marked = [name for name, decorators in on_functions.items() if decorators]
        if sum(map(len, on_functions.values())) != len(calls):
            problems.append(f"{path.name}: an oracle mark stands elsewhere than on a module-level test function")
        if path.name in collect_ignore:
            problems.append(f"{path.name}: pytest does not collect it (tests/conftest.py collect_ignore)")
        module = importlib.import_module(f"{package}.{path.stem}")
        for name in marked:
            where = f"{path.name}::{name}"
            marks = getattr(getattr(module, name), "pytestmark", [])  # as pytest reads them
            if not name.startswith("test"):
                problems.append(f"{where}: pytest does not collect it (name it test_...)")
            if skips := [m.name for m in marks if m.name in SKIPS]:
                problems.append(f"{where}: marked {', '.join(skips)}: an oracle test runs in every `make test`")
            for mark in (m for m in marks if m.name == "oracle"):
                if not mark.args or not isinstance(mark.kwargs.get("by"), str) or not mark.kwargs["by"].strip():
                    problems.append(f'{where}: write @pytest.mark.oracle("FAMILY", ..., by="the oracle")')
                for family in mark.args:
                    found.setdefault(family, []).append(where)
    return found, problems


def test_every_family_has_a_kernel_a_summary_and_a_missing_topic_rule():
    for name, info in MEASURES.items():
        assert callable(kernel(name)), name
        assert info.summary in ("mean", "sum") and info.on_missing in ("zero", "keep"), name
    # trec_eval sums exactly its num_* counts over topics ("summary figure is sum of individual topics")
    assert {n for n, i in MEASURES.items() if i.summary == "sum"} == {"NumRet", "NumRel", "NumRelRet"}
    assert {i.trec for i in MEASURES.values() if i.summary == "sum"} == {"num_ret", "num_rel", "num_rel_ret"}
    # trec_eval -c: a missing topic keeps its judged relevant count and scores 0 on the rest
    assert {n for n, i in MEASURES.items() if i.on_missing == "keep"} == {"NumRel"}


def test_every_family_has_one_provider_that_reads_its_judgments():
    """One implementation of each measure at run time: each family of the table is computed by
    exactly one provider, of the judgments the family reads; num_q (the number of topics) by none."""
    for name, info in FAMILIES.items():
        owners = [p for p in PROVIDERS if name in p.families]
        if name == "num_q":
            assert not owners and info.summary == "count"
            continue
        assert len(owners) == 1, (name, [p.name for p in owners])
        assert owners[0].judgments == info.judgments, name
    assert set().union(*(p.families for p in PROVIDERS)) <= set(FAMILIES)
    assert set(MEASURES) <= set(FAMILIES) and all(info.offered for info in MEASURES.values())


def test_every_family_meets_an_oracle():
    """Every family of the table, offered or trec_eval's only, has a test marked as its oracle's."""
    found, problems = oracle_tests()
    assert not problems, "\n".join(problems)
    unknown = {f: tests for f, tests in found.items() if f not in FAMILIES}
    assert not unknown, f"oracle marks name families the measure table does not have (renamed?): {unknown}"
    missing = sorted(set(FAMILIES) - set(found))
    assert not missing, (
        f"families no test checks against an oracle: {', '.join(missing)}. Mark the test that checks each "
        'against an oracle that is not the harness\'s code: @pytest.mark.oracle("FAMILY", by="the oracle")'
    )


def test_the_oracle_marks_are_read_as_they_stand(tmp_path, monkeypatch):
    """The reader above, on a test package of its own: the families of a mark (computed ones
    too) are found with their test, and each way a mark can be wrong is a problem."""
    package = tmp_path / "oracle_probe_48"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "test_a.py").write_text(
        "import pytest\nCHECKED = ['AP', 'nDCG']\n\n"
        "@pytest.mark.oracle(*CHECKED, by='pytrec_eval')\ndef test_ok():\n    pass\n\n"
        "@pytest.mark.skip\n@pytest.mark.oracle('RR', by='pytrec_eval')\ndef test_skipped():\n    pass\n\n"
        "@pytest.mark.oracle('P')\ndef test_no_oracle_named():\n    pass\n\n"
        "@pytest.mark.oracle('R', by='x')\ndef helper():\n    pass\n\n"
        "class TestX:\n    @pytest.mark.oracle('bpref', by='x')\n    def test_in_a_class(self):\n        pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found, problems = oracle_tests(package, "oracle_probe_48")
    finally:
        for name in [m for m in sys.modules if m.startswith("oracle_probe_48")]:
            del sys.modules[name]
    assert found == {
        "AP": ["test_a.py::test_ok"],
        "nDCG": ["test_a.py::test_ok"],
        "RR": ["test_a.py::test_skipped"],
        "P": ["test_a.py::test_no_oracle_named"],
        "R": ["test_a.py::helper"],
    }
    assert problems == [
        "test_a.py: an oracle mark stands elsewhere than on a module-level test function",
        "test_a.py::test_skipped: marked skip: an oracle test runs in every `make test`",
        'test_a.py::test_no_oracle_named: write @pytest.mark.oracle("FAMILY", ..., by="the oracle")',
        "test_a.py::helper: pytest does not collect it (name it test_...)",
    ]


@pytest.mark.oracle("DCG", "CG", by="a plain loop over the ranking")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dcg_and_cg_equal_a_plain_loop(seed):
    rng = random.Random(seed)
    ranked, judged = {}, {}
    for t in range(6):
        docs = [f"d{i}" for i in range(rng.randint(0, 30))]
        rng.shuffle(docs)
        ranked[f"t{t}"] = (docs, [float(len(docs) - i) for i in range(len(docs))])
        judged[f"t{t}"] = {f"d{i}": rng.choice([0, 0, 1, 2, 3]) for i in range(0, 40, 2)}
    run, qrels = Run.from_ranked({q: r for q, r in ranked.items() if r[0]}), Qrels.from_dict(judged)
    ev = evaluate(run, qrels, ["DCG@10", "CG@10", "DCG"], EvalPolicy())
    for t, (docs, _) in ranked.items():
        gains = [judged[t].get(d, 0) for d in docs]
        assert ev.per_topic["CG@10"][t] == pytest.approx(sum(gains[:10]), abs=1e-12)
        want = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:10]))
        assert ev.per_topic["DCG@10"][t] == pytest.approx(want, abs=1e-12)
        assert ev.per_topic["DCG"][t] == pytest.approx(sum(g / math.log2(i + 2) for i, g in enumerate(gains)))
