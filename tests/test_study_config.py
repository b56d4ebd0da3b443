"""A study (a config of several collections, harness.config.study): what the loader makes of it
and what it refuses, without Java.

Oracle: the config of each collection alone, written out and loaded by load_config, the path
every config of one collection takes: the study's Config of that collection must equal it, field
for field (its source aside: the study's file), in every layout docs/data.md reads. And the
two-tolerance rule of `expect:` (OK, OK-ish, FAIL) checked at its edges."""

from __future__ import annotations

import dataclasses
import json
import textwrap
import warnings
from pathlib import Path

import pytest
import yaml

from harness.config import Config, Study, load_config, load_experiment
from harness.errors import ConfigError
from harness.experiment.result import FAIL, OK, OKISH, Check
from harness.policies import MetaPolicy

from .conftest import REPO, config_validator
from .test_beir import dataset
from .test_caches import irds_home, no_network, place, pyserini_home, register  # noqa: F401 (the fixtures)

CORPORA, TOPICS, QRELS = REPO / "corpora", REPO / "topics" / "demo.tsv", REPO / "qrels" / "demo.txt"
XQUAD = REPO / "tests" / "data" / "xquad"

SHARED = """\
runs:
  - bm25: {k1: 0.9, b: 0.4}
  - dirichlet: {mu: [500, 1000]}
depth: 100
measures: [AP, nDCG@10]
expect_tolerance: 0.001
compare: {baseline: bm25, test: randomization, permutations: 1000, seed: 7}
evaluation: {missing_topics: drop}
"""


def _entries(tmp: Path, irds: str) -> dict[str, str]:
    """Each collection's own keys, in another layout each (YAML, indented as an entry's)."""
    beir = dataset(tmp / "scifact")
    (tmp / "msmarco").mkdir()
    (tmp / "msmarco" / "collection.tsv").write_text("p1\tthe first passage\np2\tanother passage here\n")
    (tmp / "msmarco" / "queries.tsv").write_text("1\tfirst passage\n")
    (tmp / "msmarco" / "qrels.txt").write_text("1 0 p1 1\n")
    index = tmp / "lucene-index"
    index.mkdir()
    (index / "segments_1").write_bytes(b"")  # what marks a Lucene index folder
    return {
        "demo": f"""\
            collection: {{path: {CORPORA}, format: text-folder}}
            index: {{stemmer: krovetz, stopwords: false}}
            topics: {{path: {TOPICS}, format: tsv}}
            qrels: {QRELS}
            expect: {{bm25: {{AP: 0.5}}, "dirichlet mu=1000": {{nDCG@10: 0.6}}}}
            """,
        "de": f"""\
            collection: {XQUAD / "de.jsonl"}
            index: {{language: de}}
            topics: {XQUAD / "de.tsv"}
            qrels: {XQUAD / "qrels.txt"}
            """,
        "scifact": f"""\
            collection: {{path: {beir}, format: beir, fields: true}}
            topics: {{path: {beir / "queries.jsonl"}, format: beir}}
            qrels: {beir / "qrels" / "test.tsv"}
            """,
        "passages": f"""\
            collection: {{path: {tmp / "msmarco" / "collection.tsv"}, format: tsv}}
            topics: {tmp / "msmarco" / "queries.tsv"}
            qrels: {tmp / "msmarco" / "qrels.txt"}
            """,
        "named": f"""\
            collection: {{path: {CORPORA}, format: text-folder}}
            topics: irds:{irds}
            qrels: {{irds: {irds}}}
            """,
        "pyserini": f"""\
            collection: {{path: {CORPORA}, format: text-folder}}
            topics: {{pyserini: msmarco-passage-dev-subset}}
            qrels: pyserini:msmarco-passage-dev-subset
            """,
        "existing": f"""\
            index: {{path: {index}}}
            topics: {TOPICS}
            qrels: {QRELS}
            """,
    }


def _study(entries: dict[str, str], output: Path) -> str:
    items = "".join(
        f"  - name: {name}\n" + textwrap.indent(textwrap.dedent(keys), "    ") for name, keys in entries.items()
    )
    return f"name: suite\ncollections:\n{items}{SHARED}output: {output}\n"


def _alone(name: str, keys: str, output: Path) -> str:
    return f"name: {name}\n{textwrap.dedent(keys)}{SHARED}output: {output}\n"


def test_a_study_is_the_configs_of_its_collections_alone(tmp_path, irds_home, pyserini_home):  # noqa: F811
    dataset_id = register(irds_home)
    place(irds_home, dataset_id, TOPICS.read_text(), QRELS.read_text())
    for kind, file in (
        ("topics", "topics.msmarco-passage.dev-subset.txt"),
        ("qrels", "qrels.msmarco-passage.dev-subset.txt"),
    ):
        (pyserini_home / kind).mkdir(parents=True)
        (pyserini_home / kind / file).write_text((TOPICS if kind == "topics" else QRELS).read_text())
    entries = _entries(tmp_path, dataset_id)
    (tmp_path / "study.yaml").write_text(_study(entries, tmp_path / "out"))
    with pytest.warns(UserWarning, match=r"collections\[de\]\.collection: .*de\.jsonl read as format jsonl"):
        study = load_experiment(tmp_path / "study.yaml")
    assert isinstance(study, Study) and study.name == "suite" and study.output == tmp_path / "out"
    assert list(study.collections) == list(entries)
    for name, keys in entries.items():
        (tmp_path / f"{name}.yaml").write_text(_alone(name, keys, tmp_path / "out" / "collections" / name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # de's format read from its files, said above for the study
            alone = load_config(tmp_path / f"{name}.yaml")
        ours = study.collections[name]
        assert isinstance(ours, Config)
        assert dataclasses.replace(ours, source=alone.source) == alone, name
        assert ours.names == alone.names and ours.raw == {**alone.raw, "output": ours.raw["output"]}
        assert ours.source == tmp_path / "study.yaml"
    demo = study.collections["demo"]
    assert (demo.stemmer, demo.stopwords, demo.expect_tolerance) == ("krovetz", False, 0.001)
    assert [str(m) for m in demo.expect["bm25(k1=0.9,b=0.4)"]] == ["AP"]
    assert study.collections["de"].language == "de" and str(study.collections["de"].collection_format) == "jsonl"
    assert study.collections["existing"].collection_path is None
    assert str(study.collections["named"].topics_format) == f"irds:{dataset_id}"
    assert str(study.collections["pyserini"].topics_format) == "anserini:TsvInt"  # the reader Pyserini uses
    assert study.collections["scifact"].search_fields  # the BEIR folder's title a field of its own
    # the same through load_experiment for a config of one collection: the Config load_config gives
    assert load_experiment(tmp_path / "passages.yaml") == load_config(tmp_path / "passages.yaml")


def test_the_json_schema_takes_a_study_and_refuses_both_forms(tmp_path):
    import jsonschema

    validator = config_validator()
    study = yaml.safe_load((REPO / "configs" / "study.yaml").read_text())
    validator.validate(study)
    validator.validate(yaml.safe_load((REPO / "configs" / "demo.yaml").read_text()))
    for key in ("topics", "qrels", "collection", "index", "expect"):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({**study, key: {}})
    with pytest.raises(jsonschema.ValidationError):  # neither topics nor collections
        validator.validate({k: v for k, v in study.items() if k != "collections"})
    assert json.dumps(validator.schema)  # serialisable as `harness schema` prints it


def test_the_shipped_study_loads():
    study = load_experiment(REPO / "configs" / "study.yaml")
    assert list(study.collections) == ["demo", "de", "es", "ru", "zh"]
    assert [c.language for c in study.collections.values()] == ["en", "de", "es", "ru", "zh"]
    assert study.output == REPO / "reports" / "study"


# --- mistakes: one problem each, named in its entry ---------------------------------------------

GOOD = f"""\
  - name: demo
    collection: {{path: {CORPORA}, format: text-folder}}
    topics: {TOPICS}
    qrels: {QRELS}
"""


def problems(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "s.yaml").write_text(text)
    with pytest.raises(ConfigError) as e:
        load_experiment(tmp_path / "s.yaml")
    return [str(p).removeprefix(f"{tmp_path}/") for p in e.value.problems]


def study(entries: str, top: str = "") -> str:
    return f"name: s\ncollections:\n{entries}runs: [bm25]\nmeasures: [AP]\noutput: out\n{top}"


def test_every_mistake_once_with_its_entry_in_the_key_path(tmp_path):
    text = study(
        GOOD
        + f"""\
  - name: de
    collection: {{path: {XQUAD / "de.jsonl"}, format: jsonl}}
    index: {{language: dee}}
    topic: {XQUAD / "de.tsv"}
    qrels: {XQUAD / "qrels.txt"}
  - name: es
    collection: {{path: {XQUAD / "nope.jsonl"}, format: jsonl}}
    topics: {{path: {XQUAD / "es.tsv"}, format: tsvx}}
    qrels: {XQUAD / "qrels.txt"}
    depth: 10
""",
        "depth: 0\n",
    )
    assert problems(tmp_path, text) == [
        "s.yaml:9: collections[de].index.language: must be one of "
        + problems_language_choices()
        + " (got 'dee'); did you mean 'de'?",
        "s.yaml:10: collections[de].topic: unknown key 'topic'; did you mean 'topics'? "
        "Valid: name, collection, index, topics, qrels, expect",
        f"s.yaml:13: collections[es].collection.path: file or folder not found: {XQUAD / 'nope.jsonl'} "
        f"(paths are relative to the config file's folder, {tmp_path})",
        "s.yaml:14: collections[es].topics.format: must be one of tsv, jsonl, trec, vectors, beir, impact, "
        "anserini:<Reader> (got 'tsvx'); did you mean 'tsv'?",
        "s.yaml:16: collections[es].depth: `depth` applies to every collection of the study: give it once at "
        "the top level, beside `collections` (an entry gives name, collection, index, topics, qrels, expect)",
        "s.yaml:20: depth: must be an integer >= 1 (got 0)",  # once, not once per collection
    ]


def problems_language_choices() -> str:
    from harness.policies import LANGUAGES

    return ", ".join(LANGUAGES)


def test_a_problem_of_some_collections_names_them(tmp_path):
    text = study(
        GOOD + f"  - name: bare\n    collection: {{path: {CORPORA}, format: text-folder}}\n    topics: {TOPICS}\n"
    )
    assert problems(tmp_path, text) == [
        "s.yaml:11: measures (with collections[bare]): needs qrels: without `qrels` only runs are written and "
        "nothing is measured; add `qrels: <path>` or remove `measures`"
    ]


def test_top_level_collection_keys_and_collections_are_one_error(tmp_path):
    text = f"name: s\ntopics: {TOPICS}\nqrels: {QRELS}\ncollections:\n{GOOD}runs: [bm25]\noutput: out\n"
    (found,) = problems(tmp_path, text)
    assert found.startswith("s.yaml:2: topics: `topics`, `qrels` are given beside `collections`: a config is either")
    assert "move `topics`, `qrels` into each entry of `collections`, or remove `collections`" in found


def test_expect_goes_in_the_entries(tmp_path):
    (found,) = problems(tmp_path, study(GOOD, "expect: {bm25: {AP: 0.5}}\n"))
    assert found.startswith("s.yaml:10: expect: `expect` is given beside `collections`")


def test_names_unique_reserved_and_required(tmp_path):
    text = study(
        GOOD
        + GOOD.replace("name: demo", "name: DEMO")
        + GOOD.replace("name: demo", "name: mean")
        + GOOD.replace("  - name: demo\n    collection", "  - collection")
        + GOOD.replace("name: demo", "name: .hidden")
    )
    assert problems(tmp_path, text) == [
        "s.yaml:7: collections[1].name: 'DEMO' names another collection too (collections[0]); names are unique",
        "s.yaml:11: collections[2].name: 'mean' is a column of collections.csv (measure, run, mean): choose another",
        "s.yaml:15: collections[3].name: required key is missing (The collection's name: its column in the tables "
        "across collections and its report's folder, `OUTPUT/collections/NAME`. Unique (also ignoring case), at "
        "most 64 characters, not `measure`, `run`, `mean`, `fixed`, `random`.)",
        "s.yaml:18: collections[4].name: must match [A-Za-z0-9_-][A-Za-z0-9_.-]{0,63} (got '.hidden'): letters, "
        "digits, '_', '-' and '.' (not first), at most 64; it names a folder",
    ]


def test_a_collection_missing_its_documents_is_named(tmp_path):
    (found,) = problems(tmp_path, study(f"  - name: x\n    topics: {TOPICS}\n    qrels: {QRELS}\n"))
    assert found.startswith("s.yaml:3: collections[x].collection: required key is missing")


def test_the_list_itself(tmp_path):
    assert problems(tmp_path, study("").replace("collections:\n", "collections: []\n")) == [
        "s.yaml:2: collections: an empty list names no collection; give one entry per collection"
    ]
    assert problems(tmp_path, study("  - just a string\n")) == [
        "s.yaml:3: collections[0]: expected a mapping {name, collection, topics, qrels}, got the string 'just a string'"
    ]


def test_run_files_and_a_shared_index_folder_are_refused(tmp_path):
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 x 1 1.0 t\n")
    text = study(
        GOOD.replace("qrels:", f"index: {{path: {tmp_path / 'idx'}}}\n    qrels:")
        + GOOD.replace("name: demo", "name: again").replace(
            "qrels:", f"index: {{path: {tmp_path / 'idx'}}}\n    qrels:"
        )
    ).replace("runs: [bm25]", f"runs: [bm25, {{file: {run}}}]")
    assert problems(tmp_path, text) == [
        f"s.yaml:11: collections[again].index.path: {tmp_path / 'idx'} is also the index of collections[demo]: "
        "each collection's index needs its own folder (leave `index.path` out: indexes are named by their "
        "collection and options)",
        "s.yaml:13: runs[1].file: a run read from a file answers one collection's topics, and the runs of a study "
        "are every collection's: remove the `file:` entry (or give that collection a config of its own)",
    ]


def test_set_reaches_into_an_entry(tmp_path):
    from harness.verbs.run import load

    path = tmp_path / "s.yaml"
    path.write_text(study(GOOD + GOOD.replace("name: demo", "name: two")))
    loaded = load(path, sets=["collections.1.index.stemmer=krovetz", "depth=50"])
    assert [c.stemmer for c in loaded.collections.values()] == ["porter", "krovetz"]
    assert {c.depth for c in loaded.collections.values()} == {50}
    with pytest.raises(
        ConfigError, match=r"--set collections\.1\.topics\.format=x: collections\[two\]\.topics\.format"
    ):
        load(path, sets=["collections.1.topics.format=x"])


def test_load_config_refuses_a_study(tmp_path):
    (tmp_path / "s.yaml").write_text(study(GOOD))
    with pytest.raises(ConfigError, match="a study of several collections: read it with"):
        load_config(tmp_path / "s.yaml")


# --- expect: OK, OK-ish, FAIL ------------------------------------------------------------------


def test_the_okish_tolerance_defaults_to_anserinis_150_percent(tmp_path):
    base = f"name: t\ncollection: {{path: {CORPORA}, format: text-folder}}\ntopics: {TOPICS}\nqrels: {QRELS}\nruns: [bm25]\noutput: out\n"
    (tmp_path / "c.yaml").write_text(base)
    cfg = load_config(tmp_path / "c.yaml")
    assert (cfg.expect_tolerance, cfg.expect_okish_tolerance) == (0.00005, 1.5 * 0.00005)
    (tmp_path / "c.yaml").write_text(base + "expect_tolerance: 0.01\nexpect_okish_tolerance: 0.05\n")
    cfg = load_config(tmp_path / "c.yaml")
    assert (cfg.expect_tolerance, cfg.expect_okish_tolerance) == (0.01, 0.05)
    (tmp_path / "c.yaml").write_text(base + "expect_tolerance: 0.01\nexpect_okish_tolerance: 0.005\n")
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "c.yaml")
    (p,) = e.value.problems
    assert str(p).endswith(
        "c.yaml:8: expect_okish_tolerance: must be at least expect_tolerance (0.01; got 0.005): a value within "
        "expect_tolerance is OK, one between the two OK-ish, one beyond both fails"
    )


@pytest.mark.parametrize(
    ("actual", "status"),
    [
        (0.5, OK),
        (0.625, OK),  # the tolerance itself (numbers exact in binary: no rounding at the edges)
        (0.3125, OKISH),  # either way
        (0.6875, OKISH),  # 150% of it: still OK-ish
        (0.6876, FAIL),
        (None, FAIL),  # no value at all
    ],
)
def test_check_status_at_its_edges(actual, status):
    c = Check("bm25", "AP", 0.5, actual, 0.125)  # OK-ish within 1.5 x 0.125, Anserini's margin
    assert c.status == status and c.ok == (status != FAIL)
    assert str(c).startswith(f"[{status}] bm25 AP: expected=0.5 actual=")
    assert str(c).endswith("(tolerance 0.125, OK-ish within 0.1875)")
    assert Check("bm25", "AP", 0.5, 0.6876, 0.125, 0.25).status == OKISH  # its own wider margin


def test_the_judging_page_takes_one_collection(tmp_path):
    from harness.errors import DataError
    from harness.verbs import judge
    from harness.verbs.run import load

    (tmp_path / "s.yaml").write_text(study(GOOD + GOOD.replace("name: demo", "name: two")))
    with pytest.raises(DataError, match=r"a study of 2 collections \(demo, two\): the judging page pools one"):
        judge.from_config(load(tmp_path / "s.yaml"))


# --- compare.meta: the study's meta-analysis across its collections --------------------------------

TWO = GOOD + GOOD.replace("name: demo", "name: two")


def compared(entries: str, top: str = "") -> str:
    """A study of two runs (a comparison needs two) with ``top`` at its end."""
    return study(entries, top).replace("runs: [bm25]", "runs: [bm25, dirichlet]")


@pytest.mark.parametrize(
    "top, meta",
    [
        ("", None),  # nothing compared, nothing combined
        ("compare:\n", MetaPolicy()),  # on by default in a study of two collections or more
        ("compare: {baseline: bm25}\n", MetaPolicy()),
        ("compare: {meta: true}\n", MetaPolicy()),
        ("compare: {meta: }\n", MetaPolicy()),
        ("compare: {meta: false}\n", None),
        ("compare: {meta: {effect: standardized}}\n", MetaPolicy("standardized", "dl")),
        ("compare: {meta: {effect: raw, method: pm}}\n", MetaPolicy("raw", "pm")),
    ],
)
def test_the_meta_analysis_is_the_studys_and_each_collection_its_config_alone(tmp_path, top, meta):
    (tmp_path / "s.yaml").write_text(compared(TWO, top))
    s = load_experiment(tmp_path / "s.yaml")
    assert s.meta == meta
    for name, cfg in s.collections.items():  # `meta` taken out: the config of the collection alone loads
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump({**cfg.raw, "output": str(tmp_path / name)}))
        alone = load_config(tmp_path / f"{name}.yaml")
        assert alone.compare == cfg.compare and "meta" not in (cfg.raw.get("compare") or {})


def test_the_meta_analysis_set_from_every_door(tmp_path):
    from harness.verbs.run import load

    path = tmp_path / "s.yaml"
    path.write_text(compared(TWO, "compare: {baseline: bm25}\n"))
    want = MetaPolicy("standardized", "pm")
    assert load(path, sets=["compare.meta={effect: standardized, method: pm}"]).meta == want
    assert load(path, sets=["compare.meta.effect=standardized", "compare.meta.method=pm"]).meta == want
    assert load(path, overrides={"compare.meta": {"effect": "standardized", "method": "pm"}}).meta == want
    assert load(path, overrides={"compare.meta": False}).meta is None
    with pytest.raises(ConfigError, match=r"--set compare\.meta\.method=reml: compare\.meta\.method: must be one of"):
        load(path, sets=["compare.meta.method=reml"])


def test_compare_meta_mistakes_one_problem_each(tmp_path):
    assert problems(tmp_path, compared(TWO, "compare: {meta: {effect: hedges, method: reml}}\n")) == [
        "s.yaml:14: compare.meta.effect: must be one of raw, standardized (got 'hedges')",
        "s.yaml:14: compare.meta.method: must be one of dl, pm (got 'reml')",
    ]
    assert problems(tmp_path, compared(TWO, "compare: {meta: {efect: raw}}\n")) == [
        "s.yaml:14: compare.meta.efect: unknown key 'efect'; did you mean 'effect'? Valid: effect, method"
    ]
    assert problems(tmp_path, compared(TWO, "compare: {meta: 3}\n")) == [
        "s.yaml:14: compare.meta: expected a mapping with keys effect, method (or true: its defaults; false: off), "
        "got the integer 3"
    ]
    assert problems(tmp_path, compared(TWO, "compare: {meta: true, alpha: 2}\n")) == [  # the others' still said
        "s.yaml:14: compare.alpha: must be a number in (0, 1) (got 2)"
    ]
    # a study of one collection has nothing to combine: said once, not once per collection
    assert problems(tmp_path, compared(GOOD, "compare: {meta: {method: pm}}\n")) == [
        "s.yaml:10: compare.meta: a meta-analysis combines each comparison over two collections or more, and this "
        "study has 1: add a collection to `collections`, or remove `meta`"
    ]
    (tmp_path / "s.yaml").write_text(compared(GOOD, "compare: {meta: false}\n"))
    assert load_experiment(tmp_path / "s.yaml").meta is None


def test_a_config_of_one_collection_refuses_compare_meta(tmp_path):
    one = (
        f"name: t\ncollection: {{path: {CORPORA}, format: text-folder}}\ntopics: {TOPICS}\nqrels: {QRELS}\n"
        "runs: [bm25, dirichlet]\noutput: out\n"
    )
    assert problems(tmp_path, one + "compare: {meta: true}\n") == [
        "s.yaml:7: compare.meta: a meta-analysis combines each comparison over the collections of a study, and "
        "this config is one collection: remove `meta`, or make the config a study of several (`collections:`, "
        "docs/experiments.md: *Studies*)"
    ]
    # its value's own mistake is the one said (the rest follows once it is fixed)
    assert problems(tmp_path, one + "compare: {meta: {effect: x}}\n") == [
        "s.yaml:7: compare.meta.effect: must be one of raw, standardized (got 'x')"
    ]
    (tmp_path / "s.yaml").write_text(one + "compare: {meta: false}\n")
    assert load_config(tmp_path / "s.yaml").compare is not None


def test_pooled_row_names_are_no_collections(tmp_path):
    assert problems(tmp_path, compared(GOOD + GOOD.replace("name: demo", "name: random"))) == [
        "s.yaml:7: collections[1].name: 'random' names the pooled rows of meta_analysis.csv (fixed, random): "
        "choose another"
    ]
    config = yaml.safe_load(compared(TWO))
    validator = config_validator()
    assert validator.is_valid(config)
    for reserved in ("measure", "run", "mean", "fixed", "random"):  # as the loader refuses them
        config["collections"][1]["name"] = reserved
        assert not validator.is_valid(config), reserved


@pytest.mark.parametrize(
    "entries, compare, valid",
    [
        (2, {"meta": True}, True),
        (2, {"meta": {"effect": "standardized", "method": "pm"}}, True),
        (2, {"meta": {"effect": "hedges"}}, False),
        (2, {"meta": {"method": "reml"}}, False),
        (2, {"meta": {"efect": "raw"}}, False),
        (2, {"meta": 3}, False),
        (1, {"meta": True}, False),  # nothing to combine
        (1, {"meta": {}}, False),
        (1, {"meta": False}, True),
        (1, {"baseline": "bm25"}, True),
    ],
)
def test_the_json_schema_agrees_on_compare_meta(tmp_path, entries, compare, valid):
    text = compared(TWO if entries == 2 else GOOD).replace("output: out", f"output: {tmp_path / 'out'}")
    config = {**yaml.safe_load(text), "compare": compare}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    try:
        load_experiment(tmp_path / "s.yaml")
        ours = True
    except ConfigError:
        ours = False
    assert config_validator().is_valid(config) == ours == valid
