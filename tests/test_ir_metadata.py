"""Each run's ir_metadata (issue 50, item 1): beside the run (runs/NAME.ir-metadata.yml) or at its
top between '# ir_metadata.start' and '# ir_metadata.end', as repro_eval 0.5.0 writes and reads
it; every reader of runs accepts such a run with the plain run's numbers, and `harness trec_eval`
refuses it as trec_eval 9.0.8 does.

The oracles: repro_eval 0.5.0's own metadata reader and writer (``repro_eval.metadata.MetadataHandler``),
pytrec_eval (through repro_eval's ``strip_metadata``), the trec_eval binary of Anserini's fatjar,
the machine as Python's standard library reads it, hashlib, and git itself for the checkout."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import types
from pathlib import Path

import jsonschema
import pandas
import pytest
import yaml

import harness
from harness.cli import main
from harness.config import load_config
from harness.errors import ConfigError, DataError
from harness.experiment.machine import checkout
from harness.formats.ir_metadata import STRIP_HINT, block_span
from harness.formats.runs import read_run

from .conftest import REPO, config_validator, demo_config
from .test_trec_eval_binary import trec_eval  # noqa: F401 (the fixture)

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 1\n10 0 d6 1\n"
RUN_A = "1 Q0 d1 1 1.5 a\n1 Q0 d3 2 1.2 a\n1 Q0 d9 3 1.0 a\n2 Q0 d5 1 3 a\n2 Q0 d4 2 2 a\n10 Q0 d6 1 1 a\n"
RUN_B = "1 Q0 d3 1 2.5 b\n1 Q0 d2 2 1.2 b\n2 Q0 d4 1 3 b\n2 Q0 d9 2 2 b\n10 Q0 d9 1 1 b\n10 Q0 d6 2 0.5 b\n"
DOC = {
    "schema-version": 0.1,
    "tag": "a",
    "actor": {"name": "Ann Example", "team": "t1", "role": "experimenter"},
    "method": {"retrieval": [{"name": "bm25", "k1": 0.9, "b": 0.4}]},
    "research goal": {"evaluation": {"reported_measures": ["map"]}},
}


def repro_eval_metadata():
    """repro_eval 0.5.0's metadata module. Its top imports pkg_resources, which setuptools 81 and
    later no longer ship, for two functions these tests never call (the installed packages, its
    resource file of languages): an empty stand-in lets the module load; its reader and writer
    use nothing of it. The stand-in leaves sys.modules once the module has loaded: left there, it
    broke pytest's own monkeypatch.syspath_prepend (which imports pkg_resources when it is present)
    in later tests of the same worker."""
    stand_in = "pkg_resources" not in sys.modules
    if stand_in:
        sys.modules["pkg_resources"] = types.ModuleType("pkg_resources")
    try:
        from repro_eval import metadata
    finally:
        if stand_in:
            del sys.modules["pkg_resources"]
    return metadata


def annotate_with_repro_eval(plain: Path, out: Path, doc: dict = DOC) -> Path:
    """``plain`` annotated by repro_eval's own writer (MetadataHandler.write_metadata)."""
    handler = repro_eval_metadata().MetadataHandler(str(plain))
    handler.set_metadata(metadata_dict=doc)
    handler.write_metadata(run_path=str(out))
    return out


def _harness(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    for name, text in (("a", RUN_A), ("b", RUN_B)):
        (tmp_path / "plain").mkdir(exist_ok=True)
        (tmp_path / "plain" / f"{name}.trec").write_text(text)
        (tmp_path / "annotated").mkdir(exist_ok=True)
        annotate_with_repro_eval(tmp_path / "plain" / f"{name}.trec", tmp_path / "annotated" / f"{name}.trec")
    return tmp_path


# ------------------------------------------------------------------------------ reading
def test_repro_eval_s_block_is_read_back_and_skipped_by_the_reader(files):
    annotated = files / "annotated" / "a.trec"
    text = annotated.read_text()
    assert text.startswith("# ir_metadata.start\n# ") and "# ir_metadata.end\n1 Q0 d1 1 1.5 a\n" in text
    assert repro_eval_metadata().MetadataHandler.read_metadata(str(annotated)) == DOC
    size, lines = block_span(annotated)
    assert text.encode()[size:] == RUN_A.encode() and lines == text[:size].count("\n")
    plain, ours = read_run(files / "plain" / "a.trec"), read_run(annotated)
    assert ours.topics() == plain.topics()
    assert (ours.offsets == plain.offsets).all() and (ours.docids == plain.docids).all()
    assert (ours.scores == plain.scores).all()
    assert block_span(files / "plain" / "a.trec") == (0, 0)


def test_every_reader_accepts_an_annotated_run_with_the_plain_run_s_numbers(files, capsys):
    """harness evaluate, compare and fuse, and the Python API: the same output for the annotated
    runs as for the plain ones (the runs' names are their file names, the same in both folders)."""
    outputs = {}
    for kind in ("plain", "annotated"):
        d = files / kind
        outputs[kind] = [
            _harness(capsys, "evaluate", d / "a.trec", files / "q.txt", "-m", "AP", "-m", "nDCG@10", "-q"),
            _harness(capsys, "compare", d / "a.trec", d / "b.trec", "--qrels", files / "q.txt", "--baseline", "a"),
            _harness(capsys, "fuse", d / "a.trec", d / "b.trec", "-o", d / "fused.trec"),
        ]
        outputs[kind].append((d / "fused.trec").read_bytes())
        per_topic, means = harness.evaluate(d / "b.trec", files / "q.txt", ["AP", "P@5", "RR"])
        outputs[kind] += [per_topic.to_dict(), means.to_dict()]
        outputs[kind].append(harness.fuse([d / "a.trec", d / "b.trec"], method="combsum").to_dict())
    plain, annotated = outputs["plain"], outputs["annotated"]
    for (code, out, _), (code2, out2, err2) in zip(plain[:3], annotated[:3]):
        assert code == code2 == 0, err2
        assert out2.replace("/annotated/", "/plain/") == out
    assert plain[0][1] and plain[1][1]  # evaluate and compare printed their tables
    assert annotated[3:] == plain[3:]


def test_a_line_after_the_block_keeps_its_number_and_a_block_left_open_is_named(files, capsys):
    annotated = (files / "annotated" / "a.trec").read_text()
    size = annotated.index("# ir_metadata.end\n") + len("# ir_metadata.end\n")
    block_lines = annotated[:size].count("\n")
    (files / "bad.trec").write_text(annotated + "2 Q0 d7 3 x a\n")
    with pytest.raises(DataError) as e:
        read_run(files / "bad.trec")
    assert e.value.line == block_lines + RUN_A.count("\n") + 1 and "score (field 5)" in str(e.value)
    (files / "open.trec").write_text(annotated[: annotated.index("# ir_metadata.end")] + RUN_A)
    code, out, err = _harness(capsys, "evaluate", files / "open.trec", files / "q.txt", "-m", "AP")
    assert code == 2 and not out
    assert f"open.trec:{block_lines}: line {block_lines} is inside the ir_metadata block" in err
    assert "is the end line missing?" in err


def test_harness_trec_eval_refuses_an_annotated_run_as_trec_eval_9_0_8_does(
    files,
    trec_eval,  # noqa: F811
    capsys,
):
    """trec_eval 9.0.8 (get_trec_results.c) reads '#' lines as lines of fields: the block's first
    line has two, and it stops ("Malformed line 1", no output). harness trec_eval too; the command
    its message gives strips the block, and both then print the plain run's numbers."""
    annotated = files / "annotated" / "a.trec"
    ref = subprocess.run([trec_eval, files / "q.txt", annotated], capture_output=True, text=True)
    assert ref.returncode != 0 and not ref.stdout and "Malformed line 1" in ref.stderr, ref
    code, out, err = _harness(capsys, "trec_eval", files / "q.txt", annotated)
    assert code == 2 and not out
    assert (
        err.startswith(f"harness: error: {annotated}:1: the run starts with an ir_metadata block")
        and "Traceback" not in err
    )
    assert STRIP_HINT in err
    subprocess.run(STRIP_HINT.replace("FILE", "a.trec"), shell=True, cwd=annotated.parent, check=True)
    plain = annotated.with_name("a.trec.plain")
    assert plain.read_text() == RUN_A
    want = subprocess.run([trec_eval, "-q", files / "q.txt", plain], capture_output=True, text=True)
    assert want.returncode == 0 and "map" in want.stdout
    assert _harness(capsys, "trec_eval", "-q", files / "q.txt", plain)[:2] == (0, want.stdout)


def test_a_harness_block_of_a_run_read_from_a_file_replaces_its_own_when_written_inline(files):
    """write_annotated over a run that carries a block already: the new block, then the run's lines
    (one block only, which repro_eval reads)."""
    from harness.formats.ir_metadata import copy_annotated

    out = files / "again.trec"
    digest = copy_annotated(files / "annotated" / "a.trec", out, yaml.safe_dump({"tag": "again"}))
    assert hashlib.sha256(out.read_bytes()).hexdigest() == digest
    assert repro_eval_metadata().MetadataHandler.read_metadata(str(out)) == {"tag": "again"}
    assert out.read_text().count("# ir_metadata.start") == 1 and out.read_text().endswith(RUN_A)


# ------------------------------------------------------------------------------ the config
def test_the_config_s_actor_and_research_goal_are_checked_and_offered_by_the_schema(tmp_path):
    cfg = demo_config(
        tmp_path,
        "ir_metadata:\n  actor: {name: Ann, fields: [ir, 3], role: reproduce, orcid: 12}\n"
        "  research_goal: {venue: {name: SIGIR, year: 25}, goal: x}\n",
    )
    with pytest.raises(ConfigError) as e:
        load_config(cfg)
    problems = [str(p) for p in e.value.problems]
    assert problems == [
        f"{cfg}:16: ir_metadata.actor.orcid: expected a string, got the integer 12 (quote it)",
        f"{cfg}:16: ir_metadata.actor.fields[1]: expected a string, got the integer 3 (quote it)",
        f"{cfg}:16: ir_metadata.actor.role: must be one of experimenter, reproducer (got 'reproduce'); "
        "did you mean 'reproducer'?",
        f"{cfg}:17: ir_metadata.research_goal.goal: unknown key 'goal'. Valid: venue, publication",
        f"{cfg}:17: ir_metadata.research_goal.venue.year: must be an integer >= 1900 (got 25)",
    ], problems
    validator = config_validator()
    good = yaml.safe_load(demo_config(tmp_path, ACTOR).read_text())
    validator.validate(good)
    bad = {**good, "ir_metadata": {"actor": {"role": "reproduce"}}}
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)


# ------------------------------------------------------------------------------ the checkout
GIT = shutil.which("git")


@pytest.mark.skipif(GIT is None, reason="git makes the checkout read here")
def test_the_checkout_is_read_without_git_as_git_reads_it(tmp_path):
    """A repository, a worktree of it (.git a file), refs loose and packed, a remote whose URL
    holds a token: the commit is git's own (rev-parse), the token stays out."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a"}
    env["GIT_COMMITTER_EMAIL"] = "a@b"

    def git(*args, cwd=tmp_path / "repo"):
        return subprocess.run([GIT, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout

    (tmp_path / "repo").mkdir()
    git("init", "-q", "-b", "main")
    (tmp_path / "repo" / "f").write_text("x")
    git("add", "f")
    git("commit", "-q", "-m", "one")
    assert checkout(tmp_path / "repo") == {"commit": git("rev-parse", "HEAD").strip()}
    git("remote", "add", "origin", "https://someone:s3cret@example.org/group/repo.git")
    git("pack-refs", "--all")  # the branch's commit only in packed-refs now
    assert not (tmp_path / "repo" / ".git" / "refs" / "heads" / "main").exists()
    assert checkout(tmp_path / "repo") == {
        "repository": "https://example.org/group/repo.git",
        "commit": git("rev-parse", "HEAD").strip(),
    }
    git("worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    (tmp_path / "wt" / "g").write_text("y")
    git("add", "g", cwd=tmp_path / "wt")
    git("commit", "-q", "-m", "two", cwd=tmp_path / "wt")
    assert (tmp_path / "wt" / ".git").is_file()
    head = git("rev-parse", "HEAD", cwd=tmp_path / "wt").strip()
    assert head != git("rev-parse", "HEAD").strip()
    assert checkout(tmp_path / "wt") == {"repository": "https://example.org/group/repo.git", "commit": head}
    assert checkout(tmp_path / "nothing") == {} and checkout(tmp_path) == {}


# ------------------------------------------------------------------------------ writing
ACTOR = (
    "ir_metadata:\n"
    "  actor: {name: Ann Example, team: t1, fields: [ir, nlp], role: reproducer, orcid: 0000-0002-1825-0097}\n"
    "  research_goal: {venue: {name: SIGIR, year: 2022}, publication: {doi: https://doi.org/10.1145/3477495.3531738}}\n"
    "compare: {baseline: bm25, test: t, correction: holm}\n"
)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The demo with an actor, a research goal and a comparison: its report written with the
    ir_metadata beside each run (the default) and, once more, in each run; then searched
    (`harness search`) with each choice."""
    tmp = tmp_path_factory.mktemp("ir_metadata")
    cfg = demo_config(tmp, ACTOR)
    beside = harness.run(cfg, output=tmp / "beside")
    inline = harness.run(cfg, output=tmp / "inline", ir_metadata="inline")
    return tmp, cfg, beside, inline


def _doc(report: Path, run: dict) -> dict:
    return yaml.safe_load((report / run["file"].replace(".trec", ".ir-metadata.yml")).read_text())


@pytest.mark.java
def test_the_yml_beside_each_run_describes_it_as_the_manifest_and_the_machine_do(reports):
    tmp, cfg, result, _ = reports
    manifest = result.manifest
    versions = manifest["versions"]
    for run in manifest["runs"]:
        doc = _doc(result.output, run)
        assert list(doc) == [
            "schema-version", "tag", "platform", "research goal", "implementation", "method", "actor", "data",
        ]  # fmt: skip
        assert doc["schema-version"] == 0.1
        assert doc["tag"] == (result.output / run["file"]).read_text().split("\n")[0].split()[5] == run["spec"]
        # platform: the machine as the standard library (and repro_eval) reads it
        hardware = doc["platform"]["hardware"]
        assert hardware["cpu"]["number of cores"] == os.cpu_count()
        assert hardware["cpu"]["architecture"] == platform.machine()
        assert hardware["ram"] == f"{round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 1024**3, 2)} GB"
        assert doc["platform"]["operating system"]["kernel"] == f"{platform.system()} {platform.release()}"
        software = doc["platform"]["software"]
        python = software["libraries"]["python"]
        assert python[0] == f"python=={platform.python_version()}"
        for pkg in ("numpy", "scipy", "pyarrow", "pyjnius", "pyserini"):
            assert f"{pkg}=={importlib.metadata.version(pkg)}" in python
        assert software["libraries"]["java"] == [f"java=={versions['java']}", f"lucene=={versions['lucene']}"]
        assert software["retrieval toolkit"] == [
            f"harness=={importlib.metadata.version('harness')}",
            f"anserini=={versions['anserini']}",
        ]
        # implementation: the command, the config's hash, the checkout git names
        impl = doc["implementation"]
        assert impl["executable"] == {  # the API's output= named as manifest.json names it
            "cmd": f"harness run {cfg} output={str(tmp / 'beside')!r}",
            "config sha256": hashlib.sha256(cfg.read_bytes()).hexdigest(),
        }
        assert impl["source"]["lang"] == ["Python", "Java"]
        if GIT and (REPO / ".git").exists():
            head = subprocess.run([GIT, "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
            assert impl["source"]["commit"] == head.strip()
        # method: the run's spec, its parts, the analyzer the config asks for
        method = doc["method"]
        assert method["spec"] == run["spec"] and method["depth"] == 1000
        assert method["indexing"] == {
            "analyzer": "io.anserini.analysis.DefaultEnglishAnalyzer",
            "stemmer": "porter",
            "stopwords": "Lucene",
        }
        # data: the inputs with the manifest's hashes, the topics' as hashlib makes it
        data = doc["data"]["test collection"]
        assert data["qrels sha256"] == manifest["qrels"]["sha256"]
        assert data["topics sha256"] == hashlib.sha256((REPO / "topics" / "demo.tsv").read_bytes()).hexdigest()
        assert data["topics sha256"] == manifest["topics"]["sha256"]
        assert data["index fingerprint"] == manifest["index"]["fingerprint"]
        assert (data["source"], data["topics"], data["qrels"]) == (
            str(REPO / "corpora"),
            str(REPO / "topics" / "demo.tsv"),
            str(REPO / "qrels" / "demo.txt"),
        )
        # actor and research goal: the config's, with the evaluation the config asks for
        assert doc["actor"] == {
            "name": "Ann Example",
            "orcid": "0000-0002-1825-0097",
            "team": "t1",
            "fields": ["ir", "nlp"],
            "role": "reproducer",
        }
        assert doc["research goal"] == {
            "venue": {"name": "SIGIR", "year": 2022},
            "publication": {"doi": "https://doi.org/10.1145/3477495.3531738"},
            "evaluation": {
                "reported_measures": ["map", "P_10", "ndcg_cut_10", "recip_rank", "recall_1000"],
                "baseline": ["bm25(k1=0.9,b=0.4)"],
                "significance test": [{"name": "t-test", "correction method": "holm-bonferroni"}],
            },
        }
    bm25 = _doc(result.output, manifest["runs"][0])["method"]["retrieval"]
    assert bm25 == [{"name": "bm25", "method": "bm25(k1=0.9,b=0.4)", "k1": 0.9, "b": 0.4}]
    mu = _doc(result.output, manifest["runs"][2])["method"]["retrieval"]
    assert mu == [{"name": "dirichlet", "method": "dirichlet(mu=1000)", "mu": 1000}]


@pytest.mark.java
def test_inline_runs_are_read_by_repro_eval_and_the_run_cache_is_left_as_it_was(reports):
    """--ir-metadata inline: each report run carries the document the yml of the other report
    holds, repro_eval reads it and the run (pytrec_eval's parse of the plain run), manifest.json
    hashes the file as written, the harness evaluates it as the plain run, and the run cache's
    text (hard-linked into the other report) has no block."""
    tmp, cfg, beside, inline = reports
    metadata = repro_eval_metadata()
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for a, b in zip(beside.manifest["runs"], inline.manifest["runs"]):
        annotated, plain = inline.output / b["file"], beside.output / a["file"]
        read, doc = metadata.MetadataHandler.read_metadata(str(annotated)), _doc(beside.output, a)
        # the same document but for the command's output folder
        assert read["implementation"]["executable"].pop("cmd") == f"harness run {cfg} output={str(tmp / 'inline')!r}"
        doc["implementation"]["executable"].pop("cmd")
        assert read == doc
        with open(plain) as f:
            assert metadata.MetadataHandler.strip_metadata(str(annotated)) == pytrec_eval.parse_run(f)
        assert b["sha256"] == hashlib.sha256(annotated.read_bytes()).hexdigest() != a["sha256"]
        assert a["sha256"] == hashlib.sha256(plain.read_bytes()).hexdigest()
        assert not plain.read_text().startswith("#") and annotated.stat().st_nlink == 1
        assert not (inline.output / b["file"].replace(".trec", ".ir-metadata.yml")).exists()
        _, means = harness.evaluate(annotated, REPO / "qrels" / "demo.txt", ["AP", "nDCG@10"])
        assert means.iloc[0].to_dict() == beside.means.loc[a["name"], ["AP", "nDCG@10"]].to_dict()
    for r in inline.experiment.runs:  # the cached texts: no block, as the searcher wrote them
        assert block_span(r.path) == (0, 0)


@pytest.mark.java
def test_a_config_s_file_run_may_carry_a_block(reports, tmp_path):
    """A `file:` run that is an annotated run (repro_eval's writer): read as the plain run."""
    tmp, cfg, beside, _ = reports
    plain = beside.output / beside.manifest["runs"][0]["file"]
    annotated = annotate_with_repro_eval(plain, tmp_path / "annotated.trec")
    text = cfg.read_text().replace("  - jm: {lambda: 0.1}\n", f"  - jm: {{lambda: 0.1}}\n  - file: {annotated}\n")
    (tmp_path / "c.yaml").write_text(text.replace(str(tmp / "report"), str(tmp_path / "out")))
    result = harness.run(tmp_path / "c.yaml", ir_metadata="none")
    assert result.means.loc["annotated"].to_dict() == result.means.loc["bm25"].to_dict()
    assert sorted(p.name for p in (tmp_path / "out" / "runs").iterdir() if "ir-metadata" in p.name) == []


@pytest.mark.java
def test_harness_search_writes_each_choice_and_refuses_inline_msmarco_runs(reports, capsys):
    tmp, cfg, beside, _ = reports
    out = tmp / "searched"
    docs = {}
    for choice in ("yml", "inline", "none"):
        code, printed, err = _harness(capsys, "search", cfg, "--output", out, "--ir-metadata", choice)
        assert code == 0, err
        runs = out / "runs"
        ymls = sorted(p.name for p in runs.iterdir() if p.name.endswith(".ir-metadata.yml"))
        assert ymls == (["bm25.ir-metadata.yml", "dirichlet_mu=1000.ir-metadata.yml", "dirichlet_mu=2000.ir-metadata.yml",
                         "dirichlet_mu=500.ir-metadata.yml", "jm.ir-metadata.yml"] if choice == "yml" else [])  # fmt: skip
        first = (runs / "bm25.trec").read_text().split("\n")[0]
        assert (first == "# ir_metadata.start") == (choice == "inline")
        if choice == "yml":
            docs["yml"] = yaml.safe_load((runs / "bm25.ir-metadata.yml").read_text())
        elif choice == "inline":
            docs["inline"] = repro_eval_metadata().MetadataHandler.read_metadata(str(runs / "bm25.trec"))
    assert docs["yml"] == docs["inline"]
    assert docs["yml"]["implementation"]["executable"]["cmd"] == f"harness search {cfg} --output {out}"
    assert "evaluation" not in docs["yml"].get("research goal", {})  # nothing was evaluated
    report_doc = _doc(beside.output, beside.manifest["runs"][0])
    for key in ("platform", "method", "actor"):
        assert docs["yml"][key] == report_doc[key], key
    # searching reads no qrels: the data are the collection and the topics
    judged = report_doc["data"]["test collection"]
    assert docs["yml"]["data"]["test collection"] == {k: v for k, v in judged.items() if not k.startswith("qrels")}
    code, printed, err = _harness(
        capsys, "search", cfg, "--output", out, "--ir-metadata", "inline", "--run-format", "msmarco"
    )
    assert code == 2 and "harness: error: --ir-metadata: inline writes the ir_metadata into a TREC run" in err
    marker = json.loads((out / ".harness-output.json").read_text())
    assert "runs/bm25.ir-metadata.yml" in marker["files"]


def _runs_folder(tmp_path: Path) -> Path:
    """runs/ as harness run leaves it with --ir-metadata yml: each run file, and beside it its
    ir_metadata written as the harness writes it (report.ir_metadata.to_yaml, named by yml_name)."""
    from harness.formats.ir_metadata import yml_name
    from harness.report.ir_metadata import to_yaml

    runs = tmp_path / "runs"
    runs.mkdir()
    for name, text in (("a", RUN_A), ("b", RUN_B), ("c", RUN_B.replace(" b\n", " c\n").replace("d9", "d1"))):
        (runs / f"{name}.trec").write_text(text)
        (runs / yml_name(f"{name}.trec")).write_text(to_yaml({**DOC, "tag": name}))
    return runs


def test_runs_star_gives_each_run_s_ir_metadata_which_every_list_of_runs_leaves_out(tmp_path, capsys):
    """`harness compare runs/*` (and fuse, and harness.fuse) with each run's ir_metadata beside
    it: the same output as with the run files alone, and one note on stderr naming what was left out."""
    runs = _runs_folder(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    star, trec = sorted(runs.iterdir()), sorted(runs.glob("*.trec"))
    assert len(star) == 6 and len(trec) == 3
    compare = ["--qrels", tmp_path / "q.txt", "--baseline", "a", "-m", "AP", "-m", "P@5", "--test", "randomization"]
    code, out, err = _harness(capsys, "compare", *trec, *compare)
    assert code == 0 and "harness: note" not in err and out.count("\nAP ") == 2, err
    note = "harness: note: left out 3 ir_metadata files given with the runs they describe, not runs"
    assert _harness(capsys, "compare", *star, *compare) == (
        0,
        out,
        f"{note} ({runs / 'a.ir-metadata.yml'}, ...)\n" + err,
    )
    # one run's own, in either order, and by another spelling of its path
    code, out1, err1 = _harness(capsys, "compare", runs / "b.ir-metadata.yml", *trec, *compare)
    note = "harness: note: left out the ir_metadata file given with the run it describes, not runs"
    assert (code, out1, err1) == (0, out, f"{note} ({runs / 'b.ir-metadata.yml'})\n" + err)
    again = tmp_path / "runs" / ".." / "runs" / "c.ir-metadata.yml"
    assert _harness(capsys, "compare", *trec, again, *compare) == (0, out, f"{note} ({again})\n" + err)

    # fuse: the same fused file, and --weights counts the runs alone
    fused = {}
    for kind, given in (("trec", trec), ("star", star)):
        o = tmp_path / f"{kind}.fused"
        code, _, err = _harness(capsys, "fuse", *given, "--method", "combsum", "--weights", "1", "2", "0.5", "-o", o)
        assert code == 0, err
        fused[kind] = o.read_bytes()
    # d3 of topic 1: 1 x 1.2 (a) + 2 x 2.5 (b) + 0.5 x 2.5 (c)
    assert fused["star"] == fused["trec"] and fused["trec"].startswith(b"1 Q0 d3 1 7.45 harness.fuse\n")
    pandas.testing.assert_frame_equal(harness.fuse(star, method="rrf"), harness.fuse(trec, method="rrf"))


def test_an_ir_metadata_file_given_without_its_run_is_named_as_no_run(tmp_path, capsys):
    """An ir_metadata file whose run is not among the runs given (its run left out, or another
    folder's run of its name): one error naming it, at every door, before any run is read."""
    runs = _runs_folder(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.trec").write_text(RUN_A)
    lone = runs / "c.ir-metadata.yml"
    for given, bad in (
        ([runs / "a.trec", runs / "b.trec", lone], lone),
        ([runs / "b.ir-metadata.yml", lone, runs / "a.trec", runs / "b.trec"], lone),
        ([other / "a.trec", runs / "b.trec", runs / "a.ir-metadata.yml"], runs / "a.ir-metadata.yml"),
    ):
        want = f"harness: error: {bad}: is a run's ir_metadata (the description harness run and harness search write"
        code, out, err = _harness(capsys, "compare", *given, "--qrels", tmp_path / "q.txt", "--baseline", "b")
        assert (code, out) == (2, "") and err.startswith(want) and "runs/*.trec" in err and err.count("\n") == 1, err
        code, out, err = _harness(capsys, "fuse", *given, "-o", tmp_path / "fused.trec")
        assert (code, out) == (2, "") and err.startswith(want) and err.count("\n") == 1, err
        assert not (tmp_path / "fused.trec").exists()
        with pytest.raises(DataError, match=f"^{re.escape(str(bad))}: is a run's ir_metadata"):
            harness.fuse(given)
    # a door that takes one run refuses it as before
    code, out, err = _harness(capsys, "evaluate", lone, tmp_path / "q.txt")
    assert code == 2 and err.startswith(f"harness: error: {lone}: is a run's ir_metadata"), err


def test_every_test_and_correction_has_its_ir_metadata_name():
    """research goal > evaluation > significance test names each of the harness's tests (and each
    correction but none) as ir_metadata's naming convention does, where it has a name for it."""
    from harness.policies import CORRECTIONS, IR_METADATA_CORRECTIONS, IR_METADATA_TESTS, TESTS

    assert set(IR_METADATA_TESTS) == set(TESTS)
    assert set(IR_METADATA_CORRECTIONS) == set(CORRECTIONS) - {"none"}
    assert IR_METADATA_TESTS["t"] == "t-test" and IR_METADATA_CORRECTIONS["holm"] == "holm-bonferroni"


# LongEval 2026's mandatory fields: the header of its skeleton ir-metadata.yml ("The fields below are
# mandatory"; clef-longeval/longeval-code, clef26/), and the yes/no answers its analysis of the
# submissions reads from the first retrieval entry (its scripts/analyse-ir-metadata.py)
LONGEVAL_MANDATORY = ["tag", "actor: team", "research goal: description", "platform: software: libraries"]
LONGEVAL_MANDATORY += ["implementation: source: repository", "data: training data", "method: automatic"]
LONGEVAL_ANSWERS = ["lexical", "deep_neural_model", "sparse_neural_model", "dense_neural_model"]
LONGEVAL_ANSWERS += ["single_stage_retrieval"]


@pytest.mark.java
def test_the_submission_example_makes_the_files_the_page_says(tmp_path):
    """docs/ir-metadata.md, *Submitting a run with its metadata*: its commands, run as written in a
    copy of the repository, lay out LongEval's folder: the run gzipped with the team's tag in
    every line, the run's ir_metadata beside it with that tag and the team; of LongEval's
    mandatory fields the page names, the harness writes those it says and leaves the others."""
    import gzip
    import re

    from .docs import commands, section

    title = "Submitting a run with its metadata"
    cmds = commands(title)
    assert [c.split()[0] for c in cmds] == [".venv/bin/harness", ".venv/bin/harness", "mkdir", "awk", "sed"]
    for sub in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / sub, tmp_path / sub)
    (tmp_path / "indexes").mkdir()
    (tmp_path / ".venv").symlink_to(REPO / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}
    for c in cmds:
        r = subprocess.run(["bash", "-c", c], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, (c, r.stderr[-2000:])
    runs = tmp_path / "reports" / "demo" / "runs"
    lines = (runs / "bm25.trec").read_text().splitlines()
    submitted = gzip.decompress((tmp_path / "submission" / "snapshot-1" / "run.txt.gz").read_bytes()).decode()
    assert submitted.splitlines() == [" ".join([*line.split()[:5], "my-team-bm25"]) for line in lines]
    written = yaml.safe_load((runs / "bm25.ir-metadata.yml").read_text())
    doc = yaml.safe_load((tmp_path / "submission" / "ir-metadata.yml").read_text())
    assert written["tag"] == lines[0].split()[5] == "bm25(k1=0.9,b=0.4)"
    assert doc == {**written, "tag": "my-team-bm25"} and list(doc) == list(written)
    assert doc["actor"] == {"team": "my-team"}

    text = " ".join(section(title).split())
    named = "marks as mandatory " + ", ".join(f"`{f}`" for f in LONGEVAL_MANDATORY[:-1])
    assert named + f" and `{LONGEVAL_MANDATORY[-1]}` with each `retrieval` entry's `name`" in text
    assert "(" + ", ".join(f"`{a}`" for a in LONGEVAL_ANSWERS) + ")" in text
    assert doc["platform"]["software"]["libraries"].keys() == {"python", "java"}
    assert doc["method"]["automatic"] is True and doc["method"]["retrieval"][0]["name"] == "bm25"
    assert "description" not in doc["research goal"] and "training data" not in doc["data"]
    assert not set(LONGEVAL_ANSWERS) & set(doc["method"]["retrieval"][0])
    yours = re.findall(r"^   - `([^`]+)`", section(title), re.M)
    assert sorted(yours) == sorted(
        f for f in LONGEVAL_MANDATORY if f not in ("tag", "actor: team", "method: automatic")
    )


def test_the_command_line_reads_back_as_the_words_given():
    """ir_metadata's implementation.executable.cmd: a shell splits it into the words the user
    typed (a --set value with spaces and braces was joined unquoted before)."""
    from harness.report.ir_metadata import command_line

    given = ["--set runs=[bm25, {bm25: {rm3: {}}}]", "--output /tmp/a b"]
    cmd = command_line("run", "configs/my lab.yaml", given)
    assert shlex.split(cmd) == [
        "harness", "run", "configs/my lab.yaml", "--set", "runs=[bm25, {bm25: {rm3: {}}}]", "--output", "/tmp/a b",
    ]  # fmt: skip
    # the API's arguments are no shell words: written as given
    assert command_line("run", "c.yaml", ["output='/x'"]) == "harness run c.yaml output='/x'"
