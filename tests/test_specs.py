"""The vocabulary (harness.specs): a run's identity parses back to itself, in the texts the harness
has always written (the goldens' manifests are the oracle); the registry's Java calls are the
Java factories' own signatures; run names, plots and the loader ask the values, never their text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.policies import FUSION_METHODS, FusionPolicy
from harness.specs.identity import FileRun, FusedRun, Tuned, parse_run
from harness.specs.models import EXPANSIONS, MODELS, IndexKind
from harness.specs.names import run_names
from harness.specs.similarity import Similarity

from .conftest import REPO
from .sources import harness_modules, walked

JAVA = REPO / "harness" / "engine" / "java"
BM25 = "bm25(k1=0.9,b=0.4)"
RM3 = "bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=10,original_query_weight=0.5)"


def _identities() -> list[str]:
    """Canonical texts of every kind: each model and expansion at its defaults, tuned runs, run
    files (a '+' and a ',' in a name), fusions of each method over searched, file and fused runs."""
    texts = [str(Similarity.of(m, {})) for m in MODELS]
    texts += [str(Similarity.of("bm25", {}, e, {})) for e in EXPANSIONS]
    texts += ["dirichlet(cv:AP,folds=5,seed=42)", "bm25+rm3(cv:nDCG(gain=exp)@10,folds=3,seed=7)"]
    texts += ["file(runs/bm25.trec)", "file(a+b, c.trec)", "file(run.tsv,format=msmarco)"]
    for method in FUSION_METHODS:
        weights = (1.0, 0.5) if "weights" in FUSION_METHODS[method].options else None
        policy = FusionPolicy(method, depth=100, k=10, weights=weights)
        texts.append(str(FusedRun(policy, (RM3, "file(a+b, c.trec)"))))
    texts.append(str(FusedRun(FusionPolicy(), (BM25, texts[-1]))))  # a fusion of a fusion
    return texts


@pytest.mark.parametrize("text", _identities())
def test_every_run_identity_parses_back_to_itself(text):
    run = parse_run(text)
    assert str(run) == text
    assert parse_run(str(run)) == run
    assert run.family and run.model  # what the report groups by, asked of the value


def test_the_goldens_specs_are_todays_texts():
    """The manifests the harness wrote before the vocabulary moved (tests/golden) name each run by
    its spec: every one parses to a value of its kind whose text is the same bytes."""
    specs = [
        run["spec"]
        for manifest in sorted((REPO / "tests" / "golden").rglob("manifest.json"))
        for run in json.loads(manifest.read_text(encoding="utf-8"))["runs"]
    ]
    assert len(specs) > 10
    kinds = {type(parse_run(s)).__name__ for s in specs}
    assert kinds == {"Similarity", "Tuned"}
    assert [str(parse_run(s)) for s in specs] == specs


def test_a_fused_run_keeps_the_texts_it_always_had():
    """tests/test_file_runs.py's config names this fusion in `expect` and `compare.baseline`."""
    fused = "fuse(rrf,rrf_k=60,depth=1000,k=1000:bm25(k1=0.9,b=0.4)+file(mine.trec))"
    run = parse_run(fused)
    assert isinstance(run, FusedRun) and run.parts == (BM25, "file(mine.trec)") and run.policy == FusionPolicy()
    assert str(FileRun(Path("/x/mine.trec"), "mine.trec")) == "file(mine.trec)"
    assert parse_run("file(mine.trec)") == FileRun(Path("/x/mine.trec"), "mine.trec")  # the path is not its name


def test_a_tuned_run_is_asked_for_its_family_and_model():
    t = Tuned.parse("bm25+rm3(cv:AP,folds=5,seed=42)")
    assert (t.family, t.model, t.measure, t.folds, t.seed) == ("bm25+rm3", "bm25", "AP", 5, 42)
    with pytest.raises(ValueError, match="cannot parse cross-validated run"):
        parse_run("dirichlet(cv:AP,folds=five)")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def _java_methods(source: str, returns: str) -> dict[str, list[tuple[str, str]]]:
    """{method: [(Java type, parameter name)]} of the public methods returning ``returns``."""
    text = (JAVA / source).read_text(encoding="utf-8")
    out = {}
    for name, params in re.findall(rf"public (?:static )?{re.escape(returns)} (\w+)\(([^)]*)\)", text):
        out[name] = [tuple(p.split()) for p in params.split(",") if p.strip()]
    return out


JAVA_TYPES = {"number": "float", "int": "int", "choice": "String", "bool": "boolean"}
# the Java parameters not named as the spec's: the normalisation's name and its one parameter
JAVA_NAMES = {"normalization": "norm", ("c", "mu", "z"): "param"}


@pytest.mark.parametrize(
    "entry, source, returns",
    [(m, "Similarities.java", "Similarity") for m in MODELS.values() if m.java is not None]
    + [(e, "BatchSearcher.java", "Reranker<Object>") for e in EXPANSIONS.values()],
    ids=lambda x: getattr(x, "name", ""),
)
def test_each_java_call_is_the_java_methods_signature(entry, source, returns):
    """The registry names what Java builds: each method (and the one a flag switches to) exists
    with the arguments declared, in order, by name (camelCase) and by type."""
    methods = _java_methods(source, returns)
    specs = {s.name: s for s in entry.params}
    call = entry.java
    for method in [call.method] + ([call.switch[1]] if call.switch else []):
        assert method in methods, f"{source} has no {method}"
        want = []
        for arg in call.args:
            first = specs[arg if isinstance(arg, str) else arg[0]]
            want.append((JAVA_TYPES[first.kind], JAVA_NAMES.get(arg) or _camel(str(arg))))
        assert methods[method] == want


def test_java_arguments_fill_what_a_setting_leaves_out_from_the_registry():
    """A parameter that does not apply is passed as its default (which Java ignores), a hidden
    one as its default: no default is written twice (harness.engine.search reads these)."""
    f1log = Similarity.parse("axiomatic(function=f1log)")
    axiomatic = MODELS["axiomatic"]
    assert axiomatic.java.arguments(axiomatic.params, f1log.params) == ["f1log", 0.25, 0.35, 1]
    bm25 = MODELS["bm25"]
    accurate = Similarity.parse("bm25(accurate=true)")
    assert [bm25.java.method_for(s.params) for s in (Similarity.parse("bm25"), accurate)] == ["bm25", "accurateBm25"]
    rm3 = EXPANSIONS["rm3"]
    sim = Similarity.parse(RM3)
    assert rm3.java.arguments(rm3.params, sim.expansion_params) == [10, 10, 0.5, True]
    assert [EXPANSIONS[e].feedback for e in EXPANSIONS] == [50, None, 50]


def test_names_call_a_tuned_run_by_its_family():
    runs = [Similarity.parse(f"bm25+rm3(fb_terms={n})") for n in (5, 10)]
    names = run_names(runs, tuned=[Tuned("bm25+rm3", "AP", 5, 42)])
    assert names["bm25+rm3(cv:AP,folds=5,seed=42)"] == "bm25+rm3 tuned"


def test_the_tuned_run_of_an_expansion_sweep_shares_its_models_hue():
    """plots.py groups runs by the value's model: a tuned bm25+rm3 run is bm25's darkest line
    (it had a hue of its own, read from its text as 'bm25+rm3')."""
    from harness.report.plots import run_styles

    runs = [Similarity.parse(f"bm25+rm3(fb_terms={n})") for n in (5, 10)]
    tuned = Tuned("bm25+rm3", "AP", 5, 42)
    result = SimpleNamespace(
        runs=[SimpleNamespace(name=str(s), spec=s) for s in [*runs, tuned]],
        comparisons=SimpleNamespace(tuning=[SimpleNamespace(run=str(tuned))], baselines=()),
    )
    styles = run_styles(result)
    assert {styles[str(s)].group for s in [*runs, tuned]} == {"bm25"}
    assert styles[str(tuned)].label == "cross-validated (AP, 5 folds)" and styles[str(tuned)].width == 3.5


def test_the_registry_says_which_index_each_model_searches():
    """Lucene's similarities search analysed text, each built by a Java call; knn and impact have
    searchers of their own (engine.dense, engine.impact) and no Java similarity."""
    text = IndexKind.TEXT
    assert {m.name: m.index for m in MODELS.values() if m.index is not text} == {
        "knn": IndexKind.VECTORS,
        "impact": IndexKind.IMPACT,
    }
    assert [str(kind) for kind in IndexKind] == ["text", "vectors", "impact"]  # the words messages use
    assert all((m.java is None) == (m.index is not text) for m in MODELS.values())
    assert [m.name for m in MODELS.values() if m.indri_query] == ["indri"]


def test_no_module_compares_a_model_name_as_a_string():
    """One table per concept: outside harness/specs, code asks a spec's registry entry (``index``,
    ``indri_query``, ``java``), never ``sim.model == "knn"`` (issue 48, item 1)."""
    import ast

    bad = []
    for _, path, tree in harness_modules():
        if path.parent.name == "specs":
            continue
        for node in walked(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Attribute) and s.attr == "model" for s in sides) and any(
                    isinstance(s, ast.Constant) and isinstance(s.value, str) for s in sides
                ):
                    bad.append(f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}")
    assert not bad, "\n".join(bad)
