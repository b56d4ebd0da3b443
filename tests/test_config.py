"""harness.config: the demo config, the strict schema's messages, and no Java at load time.

Configs are written inline to tmp_path; inputs point at the embedded sample collection. Tests
that validate measures (qrels given) rely on harness.metrics.parse_measure.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness.config import SCHEMA, Config, load_config, reference_markdown
from harness.engine.topics import anserini_topic_readers
from harness.errors import ConfigError
from harness.metrics import parse_measure
from harness.specs.models import MODELS

REPO = Path(__file__).resolve().parents[1]
CORPORA, TOPICS, QRELS = REPO / "corpora", REPO / "topics" / "demo.tsv", REPO / "qrels" / "demo.txt"

# A valid config without qrels (so measures are not involved); tests add or change lines.
BASE = f"""\
name: t
collection: {{path: {CORPORA}, format: text-folder}}
topics: {TOPICS}
runs:
  - bm25: {{k1: 0.9, b: 0.4}}
output: out
"""


def load(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "c.yaml"
    path.write_text(textwrap.dedent(text))
    return load_config(path)


def problems(tmp_path: Path, text: str) -> list[str]:
    """The problems as printed, with the config's folder cut (``c.yaml:12: key.path: message``)."""
    with pytest.raises(ConfigError) as e:
        load(tmp_path, text)
    assert e.value.source == str(tmp_path / "c.yaml")
    return [str(p).removeprefix(f"{tmp_path}/") for p in e.value.problems]


def only(tmp_path: Path, text: str) -> str:
    found = problems(tmp_path, text)
    assert len(found) == 1, found
    return found[0]


# --- the demo ---------------------------------------------------------------------------------


def test_demo_config_loads_with_sweep_expanded():
    cfg = load_config(REPO / "configs" / "demo.yaml")
    assert [str(r) for r in cfg.runs] == [
        "bm25(k1=0.9,b=0.4)",
        "dirichlet(mu=500)",
        "dirichlet(mu=1000)",
        "dirichlet(mu=2000)",
        "jm(lambda=0.1)",
    ]
    assert cfg.run_specs[0] == "bm25(k1=0.9,b=0.4)"
    assert cfg.name == "demo" and cfg.source == REPO / "configs" / "demo.yaml"
    assert (cfg.collection_path, str(cfg.collection_format)) == (CORPORA, "text-folder")
    assert (cfg.topics_path, str(cfg.topics_format), cfg.qrels_path) == (TOPICS, "tsv", QRELS)
    assert cfg.output == REPO / "reports" / "demo"
    assert (cfg.index_path, cfg.stemmer, cfg.stopwords, cfg.index_threads) == (None, "porter", True, 2)
    assert cfg.depth == 1000 and len(cfg.measures) == 5 and cfg.expect == {}
    assert (cfg.ties, cfg.missing_topics) == ("trec_eval", "zero")
    assert cfg.expect_tolerance == 0.00005
    assert cfg.raw["runs"][1] == {"dirichlet": {"mu": [500, 1000, 2000]}}


def test_defaults_and_runs_only_without_qrels(tmp_path):
    cfg = load(tmp_path, BASE)
    assert cfg.qrels_path is None and cfg.measures == () and cfg.expect == {}
    assert cfg.output == tmp_path / "out"
    assert str(cfg.topics_format) == "tsv"


def test_grid_is_cartesian_in_canonical_parameter_order_and_null_means_defaults(tmp_path):
    cfg = load(
        tmp_path,
        BASE.replace(
            "  - bm25: {k1: 0.9, b: 0.4}",
            """\
  - bm25: {b: [0.4, 0.75], k1: [0.9, 1.2]}
  - dirichlet: {}
  - jm:
  - dirichlet: {mu: 2e3}""",
        ),
    )
    assert cfg.run_specs == (
        "bm25(k1=0.9,b=0.4)",
        "bm25(k1=0.9,b=0.75)",
        "bm25(k1=1.2,b=0.4)",
        "bm25(k1=1.2,b=0.75)",
        "dirichlet(mu=1000)",
        "jm(lambda=0.1)",
        "dirichlet(mu=2000)",  # 2e3: a number, not YAML 1.1's string
    )


def test_duplicate_run_after_expansion_names_both_positions(tmp_path):
    msg = only(
        tmp_path,
        BASE.replace(
            "  - bm25: {k1: 0.9, b: 0.4}",
            """\
  - dirichlet: {mu: [500, 1000]}
  - bm25: {}
  - dirichlet: {mu: 1e3}""",
        ),
    )
    assert msg.startswith("c.yaml:7: runs[2]: run dirichlet(mu=1000) is given twice")
    assert "runs[0] (mu[1])" in msg and "runs[2]" in msg


def test_paths_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "topics.tsv").write_text("1\tq\n")
    sub = tmp_path / "configs"
    sub.mkdir()
    cfg = load(
        sub,
        BASE.replace(f"topics: {TOPICS}", "topics: ../topics.tsv").replace(
            "output: out", "output: ../reports/x\nindex: {path: ../indexes/x}"
        ),
    )
    assert cfg.topics_path == tmp_path / "topics.tsv"
    assert cfg.output == tmp_path / "reports" / "x" and cfg.index_path == tmp_path / "indexes" / "x"


# --- one problem each: key path, line, what was given, what is allowed -------------------------


def test_unknown_key_suggests_the_closest_and_lists_valid_keys(tmp_path):
    msg = only(tmp_path, BASE + "index: {stemer: krovetz}\n")
    assert msg == (
        "c.yaml:7: index.stemer: unknown key 'stemer'; did you mean 'stemmer'? Valid: path, language, stemmer, stopwords, vectors, quantize, M, efC, threads, prebuilt"
    )


def test_misplaced_key_points_to_its_section(tmp_path):
    msg = only(tmp_path, BASE + "threads: 4\n")
    assert msg.startswith("c.yaml:7: threads: unknown key 'threads'; did you mean index.threads?")


def test_missing_file_names_key_and_resolved_path(tmp_path):
    msg = only(tmp_path, BASE.replace(f"topics: {TOPICS}", "topics: {path: nope.tsv}"))
    assert msg.startswith(f"c.yaml:3: topics.path: file not found: {tmp_path / 'nope.tsv'}")


def test_missing_required_key(tmp_path):
    msg = only(tmp_path, BASE.replace("output: out\n", ""))
    assert msg.startswith("c.yaml:1: output: required key is missing")


def test_jm_lambda_zero(tmp_path):
    msg = only(
        tmp_path,
        BASE.replace(
            "  - bm25: {k1: 0.9, b: 0.4}", "  - bm25: {k1: 0.9, b: 0.4}\n  - dirichlet: {}\n  - jm: {lambda: 0}"
        ),
    )
    assert msg == "c.yaml:7: runs[2].jm.lambda: must be in (0, 1] (got 0)"


def test_negative_k1_in_a_sweep(tmp_path):
    msg = only(tmp_path, BASE.replace("{k1: 0.9, b: 0.4}", "{k1: [0.9, -1]}"))
    assert msg == "c.yaml:5: runs[0].bm25.k1[1]: must be in [0, inf) (got -1)"


def test_unknown_model_and_parameter(tmp_path):
    found = problems(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - bm26: {}\n  - jm: {lamda: 0.5}"))
    assert found == [
        "c.yaml:5: runs[0]: unknown model 'bm26'; did you mean 'bm25'? Valid: bm25, dirichlet, indri, jm, tfidf, dfr, "
        "ib, dfi, axiomatic, knn, impact, inl2, spl, f2exp, f2log, qld, qljm",
        "c.yaml:6: runs[1].jm.lamda: unknown jm parameter 'lamda'; did you mean 'lambda'? Valid: lambda "
        "(or one query expansion: rm3, rocchio, bm25prf)",
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("depth: ten", "depth: expected an integer, got the string 'ten'"),
        ("depth: 0", "depth: must be an integer >= 1 (got 0)"),
        ("index: {stopwords: 1}", "index.stopwords: expected true or false, got the integer 1"),
        ("name: 2024", "name: expected a string, got the integer 2024 (quote it)"),  # replaces name: t
        ("expect_tolerance: -1", "expect_tolerance: must be a number >= 0 (got -1)"),
        ("evaluation: {ties: random}", "evaluation.ties: must be one of trec_eval, as-ranked (got 'random')"),
        ("evaluation: [zero]", "evaluation: expected a mapping with keys ties, missing_topics, got a list"),
    ],
)
def test_wrong_types_and_values_say_expected_and_given(tmp_path, line, expected):
    text = (BASE.replace("name: t\n", "") if line.startswith("name:") else BASE) + line + "\n"
    msg = only(tmp_path, text)
    assert msg.split(": ", 1)[1] == expected


def test_runs_must_be_a_list_of_one_key_mappings(tmp_path):
    assert only(tmp_path, BASE.replace("runs:\n  - bm25: {k1: 0.9, b: 0.4}", "runs: bm25")).startswith(
        "c.yaml:4: runs: expected a list of runs like `- bm25: {k1: 0.9, b: 0.4}`, got the string 'bm25'"
    )
    assert "runs[0]: expected a mapping {model: {param: value}} (and optionally `name: NAME`)" in only(
        tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - {bm25: {}, jm: {}}")
    )


def test_anserinis_and_pyserinis_model_names_are_the_canonical_runs(tmp_path):
    """Issue 36: Anserini's -qld and -qljm (pyserini's set_qld) are read as dirichlet and jm, so
    the run, its name, its cache key and its numbers are the canonical run's; Anserini's names of
    what the harness does not have, and its flags written with their dash, say so."""
    from harness.specs.similarity import Similarity

    runs = "  - qld: {mu: [500, 2000]}\n  - qljm: {lambda: 0.7}\n  - qld\n  - bm25: {rm3: {fb_terms: 20}}"
    aliased = load(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", runs))
    spelled = load(
        tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", runs.replace("qljm", "jm").replace("qld", "dirichlet"))
    )
    assert aliased.run_specs == spelled.run_specs
    assert aliased.run_specs == (
        "dirichlet(mu=500)",
        "dirichlet(mu=2000)",
        "jm(lambda=0.7)",
        "dirichlet(mu=1000)",
        "bm25(k1=0.9,b=0.4)+rm3(fb_terms=20,fb_docs=10,original_query_weight=0.5)",
    )
    assert aliased.names == spelled.names
    assert [aliased.name_of(n) for n in aliased.run_specs][:3] == ["dirichlet mu=500", "dirichlet mu=2000", "jm"]
    assert str(Similarity.parse("qld(mu=500)+rm3")) == str(Similarity.parse("dirichlet(mu=500)+rm3"))
    found = problems(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - axiom: {}\n  - '-qld'\n  - qlj"))
    assert found[0].startswith("c.yaml:5: runs[0]: unknown model 'axiom': Anserini's -axiom is its axiomatic reranking")
    assert found[1].startswith(
        "c.yaml:6: runs[1]: unknown model '-qld'; did you mean 'qld' (Anserini's -qld: dirichlet)?"
    )
    assert found[2].startswith("c.yaml:7: runs[2]: unknown model 'qlj'; did you mean 'qljm'?")
    with pytest.raises(ValueError, match=r"^unknown similarity 'lmdirichlet'; did you mean 'dirichlet'\? Valid: bm25,"):
        Similarity.parse("lmdirichlet")
    # the lab's --similarity takes them too, with the model's parameter flags
    from harness.cli import build_parser
    from harness.cli.lab import similarity_from_args

    args = build_parser().parse_args(["lab", "--index", "x", "--queries", "q", "--similarity", "qld", "--mu", "500"])
    assert str(similarity_from_args(args)) == "dirichlet(mu=500)"


def test_a_bare_model_name_is_the_model_with_its_defaults(tmp_path):
    bare = load(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - bm25\n  - inl2\n  - 'jm'"))
    spelled = load(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - bm25: {}\n  - inl2:\n  - jm: {}"))
    assert (
        bare.run_specs
        == spelled.run_specs
        == ("bm25(k1=0.9,b=0.4)", "dfr(basic_model=in,after_effect=l,normalization=h2,c=0.1)", "jm(lambda=0.1)")
    )
    assert bare.names == spelled.names
    assert only(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - bm2")).startswith(
        "c.yaml:5: runs[0]: unknown model 'bm2'; did you mean 'bm25'?"
    )
    # not a string: the list still wants a mapping
    assert "runs[0]: expected a mapping" in only(tmp_path, BASE.replace("  - bm25: {k1: 0.9, b: 0.4}", "  - 25"))


def test_runs_get_short_names_and_a_given_name_is_kept(tmp_path):
    runs = (
        "  - {name: base, bm25: {k1: 0.9, b: 0.4}}\n  - bm25: {k1: 1.2, b: 0.75}\n"
        "  - dirichlet: {mu: [500, 1000]}\n  - jm: {lambda: 0.1}\n"
    )
    text = BASE.replace("  - bm25: {k1: 0.9, b: 0.4}\n", runs)
    (tmp_path / "c.yaml").write_text(text)
    cfg = load_config(tmp_path / "c.yaml")
    assert cfg.names == {
        "bm25(k1=0.9,b=0.4)": "base",
        "bm25(k1=1.2,b=0.75)": "bm25",
        "dirichlet(mu=500)": "dirichlet mu=500",
        "dirichlet(mu=1000)": "dirichlet mu=1000",
        "jm(lambda=0.1)": "jm",
    }


def test_expect_and_baseline_accept_names(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 d 1\n2 0 d 1\n3 0 d 1\n")
    runs = "  - bm25: {}\n  - dirichlet: {mu: [500, 1000]}\n"
    text = BASE.replace("  - bm25: {k1: 0.9, b: 0.4}\n", runs) + (
        "qrels: q.txt\nmeasures: [AP]\nexpect: {bm25: {AP: 0.5}, dirichlet tuned: {AP: 0.4}}\n"
        "compare: {baseline: dirichlet mu=500, cross_validation: {folds: 2}}\n"
    )
    (tmp_path / "c.yaml").write_text(text)
    cfg = load_config(tmp_path / "c.yaml")
    assert cfg.compare.baselines == ("dirichlet(mu=500)",)
    assert set(cfg.expect) == {"bm25(k1=0.9,b=0.4)", "dirichlet(cv:AP,folds=2,seed=42)"}
    assert cfg.name_of("dirichlet(cv:AP,folds=2,seed=42)") == "dirichlet tuned"


@pytest.mark.parametrize(
    "name, message",
    [
        ('""', "runs[0].name: must not be empty"),
        ("a/b", "runs[0].name: must not contain '/'"),
        ("x" * 65, "runs[0].name: must be at most 64 characters (got 65)"),
        (".", "runs[0].name: must not start with '.' (it names the run's file"),
        ("..", "runs[0].name: must not start with '.'"),
        ("'.hidden'", "runs[0].name: must not start with '.'"),
        ("'.. mu'", "runs[0].name: must not start with '.'"),
        ("'a\\b'", "runs[0].name: must not contain '/' or '\\'"),
        ('"a\\0b"', "runs[0].name: must not contain control characters"),
        ('"jm(lambda=0.1)"', "the name 'jm(lambda=0.1)' is another run's spec"),
    ],
)
def test_bad_run_names_are_named(tmp_path, name, message):
    text = BASE.replace("  - bm25: {k1: 0.9, b: 0.4}\n", f"  - {{name: {name}, bm25: {{}}}}\n  - jm: {{lambda: 0.1}}\n")
    assert message in only(tmp_path, text)


@pytest.mark.parametrize(
    "runs, message",
    [
        # the dirichlet run named bm25 was silently renamed (and its file named) "bm25 #2"
        (
            "[{bm25: {}}, {name: bm25, dirichlet: {}}]",
            "runs[1].name: 'bm25' is also the automatic name of bm25(k1=0.9,b=0.4)",
        ),
        (
            "[{name: BM25, dirichlet: {}}, {bm25: {}}]",
            "runs[0].name: 'BM25' is also the automatic name of bm25(k1=0.9,b=0.4)",
        ),
        (
            "[{bm25: {k1: [1, 2]}}, {name: bm25 k1=1, jm: {}}]",
            "'bm25 k1=1' is also the automatic name of bm25(k1=1,b=0.4)",
        ),
        # X.trec and x.trec are one file on macOS and Windows: the second run replaced the first
        ("[{name: X, bm25: {}}, {name: x, jm: {}}]", "runs[1].name: 'x' is also the name of runs[0] as 'X': on macOS"),
        ('[{name: "\\u00e9", bm25: {}}, {name: "e\\u0301", jm: {}}]', "as '\\xe9': on macOS and Windows"),
    ],
)
def test_a_given_name_is_no_other_runs_automatic_name_in_any_case(tmp_path, runs, message):
    text = BASE.replace("runs:\n  - bm25: {k1: 0.9, b: 0.4}\n", f"runs: {runs}\n")
    assert message in only(tmp_path, text)


def test_duplicate_yaml_key(tmp_path):
    msg = only(tmp_path, BASE.replace("{k1: 0.9, b: 0.4}", "{k1: 0.9, b: 0.4, k1: 1.2}"))
    assert msg == "c.yaml:5: runs[0].bm25.k1: duplicate key 'k1' (first given at line 5); give each key once"
    msg = only(tmp_path, BASE + "name: u\n")
    assert msg.startswith("c.yaml:7: name: duplicate key 'name' (first given at line 1)")


needs_jar = pytest.mark.skipif(anserini_topic_readers() is None, reason="no Anserini jar (pyserini)")


@needs_jar
def test_unknown_anserini_topic_reader_lists_readers(tmp_path):
    msg = only(
        tmp_path, BASE.replace(f"topics: {TOPICS}", f"topics: {{path: {TOPICS}, format: 'anserini:TsvInteger'}}")
    )
    assert msg.startswith("c.yaml:3: topics.format: unknown Anserini topic reader 'TsvInteger'; did you mean 'TsvInt'?")
    assert "TsvString" in msg and "Trec" in msg


@needs_jar
def test_anserini_reader_is_canonicalised(tmp_path):
    cfg = load(
        tmp_path, BASE.replace(f"topics: {TOPICS}", f"topics: {{path: {TOPICS}, format: 'anserini:TsvIntTopicReader'}}")
    )
    assert str(cfg.topics_format) == "anserini:TsvInt"


def test_bad_topic_format(tmp_path):
    msg = only(tmp_path, BASE.replace(f"topics: {TOPICS}", f"topics: {{path: {TOPICS}, format: tvs}}"))
    assert (
        msg
        == "c.yaml:3: topics.format: must be one of tsv, jsonl, trec, vectors, beir, impact, anserini:<Reader> (got 'tvs'); did you mean 'tsv'?"
    )


# --- measures and expect (need qrels; use harness.metrics.parse_measure) -----------------------

WITH_QRELS = BASE + f"qrels: {QRELS}\n"


def test_bad_measure_names_key_and_valid_names(tmp_path):
    msg = only(tmp_path, WITH_QRELS + "measures: [AP, P@ten]\n")
    assert msg.startswith("c.yaml:8: measures[1]: ")
    assert "P@ten" in msg and "AP" in msg.split("measures[1]: ", 1)[1]  # the valid names are listed


def test_measures_or_expect_without_qrels_is_an_error(tmp_path):
    msg = only(tmp_path, BASE + "measures: [AP]\n")
    assert msg.startswith("c.yaml:7: measures: needs qrels")


def test_expect_is_canonicalised(tmp_path):
    cfg = load(tmp_path, WITH_QRELS + 'measures: [AP, P@10]\nexpect: {"bm25(b=0.4,k1=0.9)": {AP: 0.25}}\n')
    assert cfg.measures == (parse_measure("AP"), parse_measure("P@10"))  # values, not their texts
    assert cfg.expect == {"bm25(k1=0.9,b=0.4)": {parse_measure("AP"): 0.25}}


def test_expect_naming_an_unknown_run_lists_the_runs(tmp_path):
    msg = only(tmp_path, WITH_QRELS + 'expect: {"bm25(k1=1.2,b=0.75)": {AP: 0.3}}\n')
    assert msg == (
        'c.yaml:8: expect["bm25(k1=1.2,b=0.75)"]: no run bm25(k1=1.2,b=0.75) in this config; '
        "its runs are: bm25(k1=0.9,b=0.4)"
    )


def test_expect_measure_must_be_measured(tmp_path):
    msg = only(tmp_path, WITH_QRELS + 'measures: [AP]\nexpect: {"bm25(k1=0.9,b=0.4)": {P@10: 0.3}}\n')
    assert msg.startswith('c.yaml:9: expect["bm25(k1=0.9,b=0.4)"]["P@10"]: ')
    assert "is not computed; add it to `measures`" in msg


# --- all at once, and malformed files ----------------------------------------------------------


def test_every_problem_is_reported_at_once(tmp_path):
    text = f"""\
name: bad name
collection: {{path: nowhere, format: txt}}
index: {{stemer: porter, threads: 0}}
topics: {TOPICS}
runs:
  - jm: {{lambda: 0}}
  - bm25: {{k1: -0.5}}
depth: 1.5
output: out
"""
    found = problems(tmp_path, text)
    paths = [p.split(": ")[1] for p in found]
    assert paths == [
        "name",
        "collection.path",
        "collection.format",
        "index.stemer",
        "index.threads",
        "runs[0].jm.lambda",
        "runs[1].bm25.k1",
        "depth",
    ]
    with pytest.raises(ConfigError) as e:
        load(tmp_path, text)
    assert str(e.value).startswith(f"{tmp_path / 'c.yaml'}: 8 problem(s) in the config:")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "c.yaml:1: the config is empty"),
        ("- a\n- b\n", "c.yaml:1: expected a mapping with keys name, collection"),
        ("name: [x\nruns: 1\n", "c.yaml:2: YAML syntax error"),
        ("name: a\n---\nname: b\n", "c.yaml:2: YAML syntax error: expected a single document"),
        # was "internal error: ReaderError" (yaml.SafeLoader checks the characters when built)
        ("name: t\nnote: a\x00b\n", "c.yaml:2: character U+0000 is not allowed in YAML"),
        # was a RecursionError naming "<unicode string>"
        ("x: " + "[" * 50_000 + "]" * 50_000 + "\n", "the config is nested too deeply to read"),
    ],
)
def test_malformed_files(tmp_path, text, expected):
    assert only(tmp_path, text).startswith(expected)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "absent.yaml")


# --- no Java, and the generated reference ------------------------------------------------------


def test_loading_does_not_import_jnius_or_pyserini(tmp_path):
    anserini = tmp_path / "a.yaml"
    fmt = "anserini:TsvInt" if anserini_topic_readers() is not None else "tsv"
    anserini.write_text(BASE.replace(f"topics: {TOPICS}", f"topics: {{path: {TOPICS}, format: '{fmt}'}}"))
    code = textwrap.dedent(f"""
        import json, sys
        from harness.config import load_config
        load_config({str(REPO / "configs" / "demo.yaml")!r})
        load_config({str(anserini)!r})
        print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('jnius', 'jnius_config', 'pyserini'))))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert json.loads(out.stdout) == []


def test_reference_is_generated_from_the_schema():
    md = reference_markdown()

    def paths(key, prefix=""):
        for sub in key.keys:
            name = f"{prefix}.{sub.name}" if prefix else sub.name
            yield name
            if key.type == "collections":  # a study's entry: its keys are the top level's, rows of their own
                continue
            yield from paths(sub, f"{name}[]" if sub.type == "collections" else name)

    for name in paths(SCHEMA):
        assert f"| `{name}` |" in md
    for model, entry in MODELS.items():
        for s in entry.params:
            assert f"| `{model}` | `{s.name}` |" in md
    assert "`porter` \\| `krovetz` \\| `none`" in md


# --- compare: --------------------------------------------------------------------------------

from harness.stats import CORRECTIONS, FAMILIES, TESTS, StatsPolicy  # noqa: E402

# BASE's one run plus a Dirichlet sweep, with qrels: a config that can compare.
SWEEP = (
    BASE.replace("output: out\n", "")
    + f"""\
  - dirichlet: {{mu: [500, 1000]}}
qrels: {QRELS}
measures: [AP, P@10]
output: out
"""
)


def test_sweep_config_loads():
    cfg = load_config(REPO / "configs" / "sweep.yaml")
    c = cfg.compare
    assert cfg.run_specs[:3] == ("bm25(k1=0.3,b=0.1)", "bm25(k1=0.3,b=0.4)", "bm25(k1=0.3,b=0.9)")
    assert c.baselines == ("bm25(k1=0.9,b=0.4)",) and not c.all_pairs and c.measure_names == ("AP", "nDCG@10")
    assert c.policy == StatsPolicy(
        test="randomization", permutations=10000, seed=42, correction="holm", family="per-measure", alpha=0.05
    )
    assert c.folds == 3
    assert c.pairs(cfg.run_specs) == [("bm25(k1=0.9,b=0.4)", n) for n in cfg.run_specs if n != "bm25(k1=0.9,b=0.4)"]


def test_no_compare_key_means_no_comparisons(tmp_path):
    assert load(tmp_path, SWEEP).compare is None


def test_compare_defaults(tmp_path):
    cfg = load(tmp_path, SWEEP + "compare: {}\n")
    c = cfg.compare
    assert c.baselines == ("bm25(k1=0.9,b=0.4)",) and not c.all_pairs  # the first run
    assert c.measures == (parse_measure("AP"), parse_measure("P@10")) and c.policy == StatsPolicy() and c.folds is None


def test_compare_baselines_canonicalised_and_all_pairs(tmp_path):
    cfg = load(
        tmp_path,
        SWEEP + 'compare: {baseline: ["dirichlet(mu=500.0)", "bm25(b=0.4,k1=0.9)"], '
        "measures: [P@10], cross_validation: {}}\n",
    )
    assert cfg.compare.baselines == ("dirichlet(mu=500)", "bm25(k1=0.9,b=0.4)")
    assert cfg.compare.measure_names == ("P@10",) and cfg.compare.folds == 5
    assert cfg.compare.pairs(cfg.run_specs) == [  # the two baselines are compared once
        ("dirichlet(mu=500)", "bm25(k1=0.9,b=0.4)"),
        ("dirichlet(mu=500)", "dirichlet(mu=1000)"),
        ("bm25(k1=0.9,b=0.4)", "dirichlet(mu=1000)"),
    ]
    cfg = load(tmp_path, SWEEP + "compare: {baseline: all-pairs, test: wilcoxon, correction: bh, family: all}\n")
    assert cfg.compare.all_pairs and cfg.compare.baselines == ()
    assert len(cfg.compare.pairs(cfg.run_specs)) == 3
    assert (cfg.compare.policy.test, cfg.compare.policy.correction, cfg.compare.policy.family) == (
        "wilcoxon",
        "bh",
        "all",
    )


def test_compare_baseline_not_a_run_lists_the_runs(tmp_path):
    msg = only(tmp_path, SWEEP + 'compare: {baseline: "bm25(k1=1.2)"}\n')
    assert msg == (
        "c.yaml:10: compare.baseline: no run bm25(k1=1.2,b=0.4) in this config; its runs are: "
        "bm25(k1=0.9,b=0.4), dirichlet(mu=500), dirichlet(mu=1000) (or give all-pairs)"
    )
    found = problems(tmp_path, SWEEP + 'compare: {baseline: ["dirichlet(mu=500)", "nonsense(", all-pairs]}\n')
    assert any("compare.baseline[1]: not a run name" in p for p in found)
    assert any("compare.baseline[2]: all-pairs compares every pair already" in p for p in found)


def test_compare_registries_and_ranges(tmp_path):
    found = problems(
        tmp_path,
        SWEEP
        + textwrap.dedent("""\
        compare:
          measures: [AP, nDCG@10]
          test: ttest
          correction: fdr
          family: each
          alpha: 1
          ci_level: 0
          permutations: 0
          seed: -3
          cross_validation: {folds: 1}
    """),
    )
    assert found == [
        "c.yaml:11: compare.measures[1]: nDCG@10 is not computed; add it to `measures` (now: AP, P@10)",
        f"c.yaml:12: compare.test: must be one of {', '.join(TESTS)} (got 'ttest')",
        f"c.yaml:13: compare.correction: must be one of {', '.join(CORRECTIONS)} (got 'fdr')",
        f"c.yaml:14: compare.family: must be one of {', '.join(FAMILIES)} (got 'each')",
        "c.yaml:15: compare.alpha: must be a number in (0, 1) (got 1)",
        "c.yaml:16: compare.ci_level: must be a number in (0, 1) (got 0)",
        "c.yaml:17: compare.permutations: must be an integer >= 1 (got 0)",
        "c.yaml:18: compare.seed: must be an integer >= 0 (got -3)",
        "c.yaml:19: compare.cross_validation.folds: must be an integer >= 2 (got 1)",
    ]


def test_compare_needs_qrels_two_runs_and_a_sweep_to_tune(tmp_path):
    assert only(tmp_path, BASE + "compare: {}\n").startswith(
        "c.yaml:7: compare: needs qrels: runs are compared on their per-topic scores"
    )
    assert "needs at least two runs to compare; the config has one (bm25(k1=0.9,b=0.4))" in only(
        tmp_path, BASE + f"qrels: {QRELS}\ncompare: {{}}\n"
    )
    two = SWEEP.replace("dirichlet: {mu: [500, 1000]}", "dirichlet: {mu: 500}")
    assert "no model of `runs` has more than one setting, so there is nothing to tune" in only(
        tmp_path, two + "compare: {cross_validation: {folds: 3}}\n"
    )


def test_compare_unknown_key(tmp_path):
    msg = only(tmp_path, SWEEP + "compare: {tset: t}\n")
    assert msg.startswith(
        "c.yaml:10: compare.tset: unknown key 'tset'; did you mean 'test'? Valid: baseline, measures, test"
    )


def test_reference_documents_the_compare_keys():
    md = reference_markdown()
    assert (
        "| `compare.baseline` | string or list | the first run; `all-pairs` with `tukey` or `randomized-tukey` | "
        "runs of this config, or `all-pairs` |"
    ) in md
    assert "| `compare.correction` | string | `holm`; `none` with `tukey` or `randomized-tukey` |" in md
    assert (
        "| `compare.power` | boolean or mapping | off | `true` (the defaults below), `false`, or the keys below |" in md
    )
    assert "| `compare.power.difference` | number | `0.05` | > 0 |" in md
    assert "| `compare.alpha` | number | `0.05` | (0, 1) |" in md
    assert "| `compare.cross_validation.folds` | integer | `5` | >= 2 |" in md
    assert " \\| ".join(f"`{t}`" for t in TESTS) in md
    for name, text in TESTS.items():
        assert f"`{name}`: {text}" in md
