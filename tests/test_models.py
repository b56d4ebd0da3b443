"""Model specs, their config syntax and indexes built elsewhere (fast; the exactness of every
family against Anserini and Lucene is tests/test_models_exact.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from harness.config import load_config
from harness.engine import lucene
from harness.errors import ConfigError
from harness.specs.models import EXPANSIONS, MODEL_NAMES, MODELS, PRESETS, model_params
from harness.specs.similarity import Similarity

from .conftest import write_full_report

REPO = Path(__file__).resolve().parents[1]
# The lexical families: knn searches a vectors index (tests/test_dense.py) and impact an impact
# index (tests/test_impact.py), which a text collection's config refuses (harness.config.dense,
# harness.config.impact; tests/test_impact_configs.py).
TEXT_MODELS = [m for m in MODELS if m not in ("knn", "impact")]


def test_existing_names_are_unchanged():
    assert str(Similarity.parse("bm25")) == "bm25(k1=0.9,b=0.4)"
    assert str(Similarity.parse("bm25(accurate=false)")) == "bm25(k1=0.9,b=0.4)"
    assert str(Similarity.parse("dirichlet")) == "dirichlet(mu=1000)"
    assert str(Similarity.parse("jm")) == "jm(lambda=0.1)"
    assert Similarity.parse("bm25").values == (("k1", 0.9), ("b", 0.4))


@pytest.mark.parametrize("model", [*MODELS, *PRESETS])
@pytest.mark.parametrize("expansion", [None, *EXPANSIONS])
def test_every_default_name_parses_back(model, expansion):
    if model in MODELS and MODELS[model].no_expansion and expansion:
        with pytest.raises(ValueError, match=f"{model} cannot take an expansion"):
            Similarity.of(model, {}, expansion, {})
        return
    sim = Similarity.of(model, {}, expansion, {})
    assert Similarity.parse(str(sim)) == sim
    assert str(Similarity.parse(str(sim))) == str(sim)
    assert sim.family == sim.model + (f"+{expansion}" if expansion else "")


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("dfr(normalization=h1)", "dfr(basic_model=in,after_effect=l,normalization=h1,c=1)"),
        ("dfr(normalization=z)", "dfr(basic_model=in,after_effect=l,normalization=z,z=0.3)"),
        ("ib(normalization=none)", "ib(distribution=spl,lambda=df,normalization=none)"),
        ("inl2", "dfr(basic_model=in,after_effect=l,normalization=h2,c=0.1)"),  # Anserini -inl2 -inl2.c 0.1
        ("spl", "ib(distribution=spl,lambda=df,normalization=h2,c=0.1)"),  # Anserini -spl -spl.c 0.1
        ("f2exp", "axiomatic(function=f2exp,s=0.5,k=0.35)"),  # Anserini -f2exp.s 0.5
        ("f2log", "axiomatic(function=f2log,s=0.5)"),
        ("axiomatic(function=f1exp)", "axiomatic(function=f1exp,s=0.25,k=0.35)"),  # Lucene's Axiomatic()
        ("axiomatic(function=f3log,query_len=4)", "axiomatic(function=f3log,s=0.25,query_len=4)"),
        ("BM25 (accurate = true)".lower(), "bm25(k1=0.9,b=0.4,accurate=true)"),
        ("bm25 + bm25prf", "bm25(k1=0.9,b=0.4)+bm25prf(fb_terms=20,fb_docs=10,k1=0.9,b=0.4,new_term_weight=0.2)"),
        (
            "dirichlet+rocchio(gamma=0.15)",
            "dirichlet(mu=1000)+rocchio(top_fb_terms=10,top_fb_docs=10,bottom_fb_terms=10,bottom_fb_docs=10,"
            "alpha=1,beta=0.75,gamma=0.15)",
        ),
    ],
)
def test_canonical_forms(text, canonical):
    assert str(Similarity.parse(text)) == canonical
    assert Similarity.parse(canonical) == Similarity.parse(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("dfr(normalization=h3,c=1)", "dfr c applies only with normalization h1 or h2 (got normalization=h3)"),
        ("axiomatic(function=f2log,k=0.3)", "axiomatic k applies only with function f1exp or f2exp or f3exp"),
        ("dfr(after_effect=none)", "dfr after_effect must be one of b, l (got 'none')"),
        ("bm25(accurate=1)", "bm25 accurate must be true or false (got 1.0)"),
        ("bm25+rm3(fb_docs=51)", "rm3 fb_docs must be a whole number in [1, 50] (got 51)"),
        ("bm25+rm3(fb_terms=2.5)", "rm3 fb_terms must be a whole number in [1, inf) (got 2.5)"),
        ("inl2(normalization=h1)", "normalization cannot be set (use dfr instead)"),
        ("bm25+rm3+rocchio", "at most one expansion"),
        ("tfidf(k1=1)", "tfidf has no parameter k1; valid: none"),
        ("bm25+rm4", "unknown query expansion 'rm4'"),
    ],
)
def test_invalid_specs_say_why(text, message):
    with pytest.raises(ValueError, match=None) as e:
        Similarity.parse(text)
    assert message in str(e.value)


def test_run_key_covers_the_expansion():
    from harness.experiment.store import run_key

    topics = [("1", "a b")]
    keys = {
        run_key("f", Similarity.parse(t), topics, 10)
        for t in ("bm25", "bm25+rm3", "bm25+rm3(fb_terms=20)", "bm25+rocchio", "bm25(accurate=true)")
    }
    assert len(keys) == 5


def _config(tmp_path, runs: str, extra: str = "") -> Path:
    corpus = tmp_path / "c.jsonl"
    if not corpus.exists():
        corpus.write_text('{"id": "d1", "contents": "apple"}\n')
        (tmp_path / "t.tsv").write_text("1\tapple\n")
    cfg = tmp_path / "c.yaml"
    text = "name: t\n" + (extra or "collection: {path: c.jsonl, format: jsonl}\n")
    cfg.write_text(text + f"topics: t.tsv\nruns:\n{runs}output: out\n")
    return cfg


def test_config_sweeps_expansion_parameters_in_canonical_order(tmp_path):
    cfg = load_config(
        _config(
            tmp_path,
            "  - bm25: {k1: 0.9, b: 0.4, rm3: {fb_docs: [5, 10], fb_terms: [10, 20]}}\n"
            "  - dfr: {normalization: h3, mu: [500, 800], basic_model: [g, in]}\n"
            "  - inl2: {c: 0.5}\n  - tfidf:\n  - bm25: {rocchio: null}\n",
        )
    )
    assert [str(r) for r in cfg.runs] == [
        "bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=5,original_query_weight=0.5)",
        "bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=10,original_query_weight=0.5)",
        "bm25(k1=0.9,b=0.4)+rm3(fb_terms=20,fb_docs=5,original_query_weight=0.5)",
        "bm25(k1=0.9,b=0.4)+rm3(fb_terms=20,fb_docs=10,original_query_weight=0.5)",
        "dfr(basic_model=g,after_effect=l,normalization=h3,mu=500)",
        "dfr(basic_model=g,after_effect=l,normalization=h3,mu=800)",
        "dfr(basic_model=in,after_effect=l,normalization=h3,mu=500)",
        "dfr(basic_model=in,after_effect=l,normalization=h3,mu=800)",
        "dfr(basic_model=in,after_effect=l,normalization=h2,c=0.5)",
        "tfidf()",
        "bm25(k1=0.9,b=0.4)+rocchio(top_fb_terms=10,top_fb_docs=10,bottom_fb_terms=10,bottom_fb_docs=10,"
        "alpha=1,beta=0.75,gamma=0)",
    ]


def test_config_errors_name_the_key(tmp_path):
    path = _config(
        tmp_path,
        "  - dfr: {basic_model: be, normalization: [h2, h3], c: 2}\n"
        "  - bm25: {rm3: {fb_docs: 60}, rocchio: {}}\n"
        "  - spl: {distribution: ll}\n"
        "  - axiomatic: {function: f2log, k: 0.3}\n"
        "  - bm25: {accurate: yes please}\n"
        "  - ib: {lamda: df}\n"
        "  - dfr: {normalization: h3, c: 2}\n",
    )
    with pytest.raises(ConfigError) as e:
        load_config(path)
    text = str(e.value)
    for expected in [
        "c.yaml:5: runs[0].dfr.basic_model: must be one of g, if, in, ine (got 'be')",
        "c.yaml:6: runs[1].bm25.rocchio: one query expansion per run (already rm3); make two runs",
        "c.yaml:7: runs[2].spl.distribution: spl is Anserini's ib with distribution: spl, lambda: df, "
        "normalization: h2; to choose distribution, use `ib`",
        "c.yaml:8: runs[3].axiomatic.k: applies only with function f1exp or f2exp or f3exp (got function: f2log)",
        "c.yaml:9: runs[4].bm25.accurate: must be true or false (got 'yes please')",
        "c.yaml:10: runs[5].ib.lamda: unknown ib parameter 'lamda'; did you mean 'lambda'?",
        "c.yaml:11: runs[6].dfr.c: applies only with normalization h1 or h2 (got normalization: h3)",
    ]:
        assert expected in text, (expected, text)


# --- indexes built elsewhere ---------------------------------------------------------------


def _anserini_index(tmp_path: Path, name: str, docvectors: bool) -> Path:
    """An index made by Anserini's IndexCollection directly (not by the harness)."""
    src = tmp_path / f"{name}-src"
    src.mkdir()
    docs = [
        ("d1", "apple banana cherry"),
        ("d2", "apple apple pie recipe"),
        ("d3", "banana bread recipe with apple"),
        ("d4", "cherry pie"),
        ("d5", "grape juice"),
    ]
    (src / "docs.jsonl").write_text("".join(json.dumps({"id": i, "contents": t}) + "\n" for i, t in docs))
    Args = lucene.jclass("io.anserini.index.IndexCollection$Args")
    args = Args()
    args.collectionClass = "JsonCollection"
    args.input = str(src)
    args.index = str(tmp_path / name)
    args.threads = 1
    args.quiet = True
    args.storePositions = True
    args.storeDocvectors = docvectors
    args.storeRaw = True
    lucene.jclass("io.anserini.index.IndexCollection")(args).run()
    return tmp_path / name


def _listing(path: Path) -> dict:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(path.rglob("*"))}


def test_existing_index_is_read_fingerprinted_and_never_written(tmp_path):
    from harness.engine.existing import segment_fingerprint, stored_features
    from harness.experiment.execute import run_experiment
    from harness.experiment.plan import plan

    plain = _anserini_index(tmp_path, "plain", docvectors=False)
    vectors = _anserini_index(tmp_path, "vectors", docvectors=True)
    assert stored_features(plain) == {"docvectors": False, "positions": True}
    assert stored_features(vectors) == {"docvectors": True, "positions": True}
    fingerprints = {index: segment_fingerprint(index) for index in (plain, vectors)}
    assert fingerprints[plain] != fingerprints[vectors]
    (tmp_path / "t.tsv").write_text("1\tapple pie\n2\tbanana\n")
    (tmp_path / "indexes").mkdir()

    # Expansion on an index without document vectors: refused at validation, naming the run.
    cfg = tmp_path / "x.yaml"
    cfg.write_text(
        f"name: x\nindex: {{path: {plain}}}\ntopics: t.tsv\nruns:\n  - bm25:\n  - bm25: {{rm3: {{fb_docs: 2}}}}\n"
        "output: out\n"
    )
    with pytest.raises(ConfigError) as e:
        load_config(cfg)
    assert "run bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=2,original_query_weight=0.5) expands" in str(e.value)
    assert "stored document vectors (Anserini IndexCollection -storeDocvectors)" in str(e.value)

    before = {p: _listing(p) for p in (plain, vectors)}
    for index in (plain, vectors):
        runs = "  - bm25:\n  - tfidf:\n" + ("  - bm25: {rm3: {fb_docs: 2}}\n" if index == vectors else "")
        cfg.write_text(f"name: x\nindex: {{path: {index}}}\ntopics: t.tsv\nruns:\n{runs}output: out\n")
        config = load_config(cfg)
        p = plan(config)
        assert p.existing and p.fingerprint == segment_fingerprint(index)
        assert p.runs_folder == tmp_path / "indexes" / f"existing-{p.fingerprint[:12]}" / "harness-runs"
        result = run_experiment(config)
        assert all(not r.reused for r in result.runs)
        assert all(r.path.parent == p.runs_folder for r in result.runs)
        again = run_experiment(config)
        assert all(r.reused for r in again.runs)
        # The oracle: Anserini's SimpleSearcher on the same index.
        ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index))
        ss.set_bm25(0.9, 0.4)
        for qid, text in [("1", "apple pie"), ("2", "banana")]:
            hits = ss.search(text, 1000)
            got = [d for d, _ in _ranking(result.runs[0].path, qid)]
            assert got == [h.docid for h in hits]
            assert np.allclose([s for _, s in _ranking(result.runs[0].path, qid)], [h.score for h in hits], atol=1e-4)
        ss.close()
    assert {p: _listing(p) for p in (plain, vectors)} == before  # never written into
    assert {index: segment_fingerprint(index) for index in (plain, vectors)} == fingerprints  # nor changed


def _ranking(path: Path, qid: str):
    rows = [line.split() for line in path.read_text().splitlines()]
    return [(r[2], float(r[4])) for r in rows if r[0] == qid]


def test_existing_index_config_needs_an_index(tmp_path):
    (tmp_path / "t.tsv").write_text("1\tapple\n")
    (tmp_path / "empty").mkdir()
    cfg = tmp_path / "x.yaml"
    cfg.write_text("name: x\ntopics: t.tsv\nruns:\n  - bm25:\noutput: out\n")
    with pytest.raises(ConfigError, match="collection: required key is missing"):
        load_config(cfg)
    cfg.write_text("name: x\nindex: {path: empty}\ntopics: t.tsv\nruns:\n  - bm25:\noutput: out\n")
    with pytest.raises(ConfigError, match=r"index.path: .*empty is not an existing Lucene index"):
        load_config(cfg)


def test_validate_names_the_new_models_without_java(tmp_path):
    """`harness validate` of a config using every family starts no JVM."""
    # The presets inl2, spl and f2exp are their families' defaults (the same runs): only f2log differs.
    runs = "".join(f"  - {m}:\n" for m in [*TEXT_MODELS, "f2log"]) + "  - bm25: {bm25prf: {fb_terms: [5, 10]}}\n"
    path = _config(tmp_path, runs)
    code = (
        "import sys; from harness.config import load_config; c = load_config(sys.argv[1]); "
        "import harness.engine.lucene as l; assert not l.started(); "
        "assert 'jnius' not in sys.modules; print(len(c.runs))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=REPO, env=os.environ
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(len(TEXT_MODELS) + 1 + 2)


def test_models_config_runs_and_its_report_renders_in_chromium(tmp_path):
    """configs/models.yaml: one setting of every family and every expansion on the sample
    collection, compared with BM25; the report groups runs by family and renders in Chromium."""
    import dataclasses

    from harness.experiment.execute import run_experiment
    from tests.test_report import chromium

    cfg = load_config(REPO / "configs" / "models.yaml")
    families = {r.family for r in cfg.runs}
    assert families >= {*TEXT_MODELS, "bm25+rm3", "bm25+rocchio", "bm25+bm25prf"}
    cfg = dataclasses.replace(cfg, index_path=tmp_path / "index", output=tmp_path / "report")
    result = run_experiment(cfg)
    out = write_full_report(result, cfg.output)
    assert all(len(r.empty_topics) < 15 for r in result.runs)
    # Every run differs from plain BM25 somewhere (each family is really a different function).
    base = result.runs[0]
    assert str(base.spec) == "bm25(k1=0.9,b=0.4)"
    for r in result.runs[1:]:
        assert r.path.read_text() != base.path.read_text(), r.name
    assert len(result.comparisons.pairs) == len(cfg.runs) - 1
    dom = chromium(tmp_path, "--dump-dom", (out / "report.html").as_uri()).stdout
    for r in result.runs:  # the report calls each run by its name
        name = cfg.name_of(r.name)
        assert name in dom or name.replace("&", "&amp;") in dom
    # Grouped by family: both bm25 rows (plain and accurate) come before dirichlet.
    from harness.report import summary_rows

    names = [row["run"] for row in summary_rows(result)]
    assert names.index("bm25(k1=0.9,b=0.4,accurate=true)") < names.index("dirichlet(mu=1000)")


def test_sweeps_over_expansion_and_choice_parameters_are_plotted(tmp_path):
    """A sweep of an expansion's parameter and a grid over a named choice draw like any sweep."""
    import dataclasses

    from harness.experiment.execute import run_experiment

    cfg = load_config(REPO / "configs" / "models.yaml")
    runs = tuple(
        Similarity.parse(t)
        for t in (
            "bm25",
            "bm25+rm3(fb_terms=5)",
            "bm25+rm3(fb_terms=10)",
            "dfr(basic_model=g,c=0.1)",
            "dfr(basic_model=g,c=1)",
            "dfr(basic_model=in,c=0.1)",
            "dfr(basic_model=in,c=1)",
        )
    )
    cfg = dataclasses.replace(cfg, runs=runs, compare=None, index_path=tmp_path / "index", output=tmp_path / "r")
    result = run_experiment(cfg)
    page = (write_full_report(result, cfg.output) / "report.html").read_text()
    assert "bm25+rm3 by rm3.fb_terms" in page
    assert "basic_model" in page and ">in<" in page and ">g<" in page


def test_existing_index_runs_are_cached_per_query_analyzer(tmp_path):
    """The queries of an existing index are analysed with the config's stemmer and stopwords, so
    they are part of its run cache's key: a run with other settings is searched, never served the
    cached run of the first (which would look valid and be wrong). Oracle: SimpleSearcher with
    the same analyzer settings."""
    from harness.experiment.execute import run_experiment
    from harness.experiment.plan import plan

    index = _anserini_index(tmp_path, "plain", docvectors=False)
    (tmp_path / "t.tsv").write_text("1\tapples and pies\n")
    (tmp_path / "indexes").mkdir()
    cfg = tmp_path / "x.yaml"
    seen = {}
    for stemmer, stopwords in (("porter", True), ("none", True), ("porter", False), ("porter", True)):
        cfg.write_text(
            f"name: x\nindex: {{path: {index}, stemmer: {stemmer}, stopwords: {str(stopwords).lower()}}}\n"
            "topics: t.tsv\nruns:\n  - bm25:\noutput: out\n"
        )
        config = load_config(cfg)
        result = run_experiment(config)
        run = result.runs[0]
        assert run.reused == ((stemmer, stopwords) in seen)
        ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index))
        english = lucene.jclass("io.anserini.analysis.DefaultEnglishAnalyzer")
        empty = lucene.jclass("org.apache.lucene.analysis.CharArraySet").EMPTY_SET
        ss.set_analyzer(
            english.newStemmingInstance(stemmer) if stopwords else english.newStemmingInstance(stemmer, empty)
        )
        ss.set_bm25(0.9, 0.4)
        assert [d for d, _ in _ranking(run.path, "1")] == [h.docid for h in ss.search("apples and pies", 1000)]
        ss.close()
        seen[(stemmer, stopwords)] = plan(config).fingerprint
    # the default settings keep the key they had (the segment fingerprint alone)
    from harness.engine.existing import segment_fingerprint

    assert seen[("porter", True)] == segment_fingerprint(index)
    assert len(set(seen.values())) == 3


class _Java:
    """Stands for the Java side: each method call returns its name and arguments."""

    def __getattr__(self, name):
        return lambda *args: (name, args)


def _engine_calls(sim: Similarity):
    """What the engine hands Java for ``sim``: the similarity and reranker it builds (a knn run:
    the candidates its HNSW search asks for; an impact run takes no parameter)."""
    from harness.engine.dense import DenseSearcher
    from harness.engine.search import Searcher

    if sim.model == "knn":
        return DenseSearcher._k(SimpleNamespace(options=SimpleNamespace(vectors="hnsw")), sim, 1000)
    java = SimpleNamespace(_similarities=_Java(), _java=_Java())
    return None if sim.model == "impact" else Searcher._similarity(java, sim), Searcher._reranker(java, sim)[0]


def _another(spec):
    """A valid value of ``spec`` other than its default."""
    if spec.kind == "choice":
        return next(c for c in spec.choices if c != spec.default)
    if spec.kind == "bool":
        return not spec.default
    d = spec.default
    return next(v for v in (d * 2, d + 1, d / 2, (d + spec.low) / 2) if v != d and spec.check(v) is None)


def _settings():
    """(model name, its settings, the parameter changed, its other value): every parameter that a
    model, preset or alias takes as the loader reads it (a conditional one with a choice it applies
    with), and every expansion's under bm25."""
    for name in MODEL_NAMES:
        family, fixed, specs, _ = model_params(name)
        for spec in specs:
            base = {spec.when[0]: spec.when[1][0]} if spec.when and spec.when[0] not in fixed else {}
            yield pytest.param(name, base, None, spec, id=f"{name}.{spec.name}")
    for expansion, entry in EXPANSIONS.items():
        for spec in entry.params:
            yield pytest.param("bm25", {}, expansion, spec, id=f"{expansion}.{spec.name}")


@pytest.mark.parametrize("name, base, expansion, spec", list(_settings()))
def test_every_parameter_a_config_takes_changes_what_the_engine_runs(name, base, expansion, spec):
    """Issue 47: a parameter the schema and the loader offer is one the engine uses. Setting it
    changes the run (its name, hence its cache key and file) and what Java is asked to build
    (Searcher._similarity, _reranker; Lucene's and Anserini's constructors: tests/test_models_exact.py)."""
    before = Similarity.of(name, base, expansion, {})
    changed = {spec.name: _another(spec)}
    if expansion is None:
        after = Similarity.of(name, {**base, **changed})
    else:
        after = Similarity.of(name, base, expansion, changed)
    assert str(after) != str(before)
    assert _engine_calls(after) != _engine_calls(before)
