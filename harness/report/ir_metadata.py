"""Each run's ir_metadata: how it was made, in the PRIMAD schema of ir-metadata.org (Breuer, Keller
and Schaer, "ir_metadata: An Extensible Metadata Schema for IR Experiments", SIGIR 2022; schema
version 0.1), written beside the run (``runs/NAME.ir-metadata.yml``) or at its top
(:mod:`harness.formats.ir_metadata`). docs/ir-metadata.md says what each field holds.

Every value is one that manifest.json already holds (harness.report.tables.provenance: the
versions, the machine, the harness's checkout, the index, the inputs' hashes, each run's spec and
source) or the config's own (its ``ir_metadata:`` actor and research goal, its measures and its
``compare:`` block), laid out in the schema's keys and spelling ("research goal", "number of
cores"); the schema's checklists are followed, and the keys it lacks (the hashes, the analyzer,
the harness's version) are added where they belong, as the schema allows.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from harness.formats.named import IRDS
from harness.formats.runs import first_tag
from harness.metrics.measures import Measure, parse_measure
from harness.metrics.trec_names import trec_eval_name
from harness.policies import DEFAULT_LANGUAGE, IR_METADATA_CORRECTIONS, IR_METADATA_TESTS, LANGUAGES
from harness.specs.similarity import Similarity

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = ["SCHEMA_VERSION", "documents", "to_yaml", "command_line"]

SCHEMA_VERSION = 0.1  # ir-metadata.org's schema-version
# the entries of manifest.json's "versions" that are not Python packages: the engine's (the
# retrieval toolkit, the JDK, Lucene), Python's own, and where Java lives (a path, no version)
_NOT_PACKAGES = ("python", "harness", "anserini", "java", "lucene", "java_home")
# the config's `ir_metadata:` keys in the schema's spelling (harness.config.schema.output.IR_METADATA)
_SPELLING = {"research_goal": "research goal"}


def to_yaml(document: dict) -> str:
    """The document as YAML, keys in the schema's order, one line per value (no folding)."""
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1 << 16, default_flow_style=False)


def documents(result: ExperimentResult, manifest: dict, files: dict[str, Path], verb: str = "run") -> dict[str, dict]:
    """{run name: its ir_metadata document} for every run of ``result``, from ``manifest`` (its
    provenance) and the config; ``files``: each run's file, whose tag column the document names
    (the first line's, as every line of a run the harness writes has it); ``verb``: the command
    that made them (``run`` or ``search``)."""
    cfg = result.config
    tags = {name: first_tag(path) or name for name, path in files.items()}
    common = {
        "platform": _platform(manifest),
        "research goal": _research_goal(result, manifest, tags),
        "implementation": _implementation(manifest, verb),
    }
    given = {_SPELLING.get(k, k): v for k, v in cfg.ir_metadata.items()}
    specs = {e["name"]: e["spec"] for e in manifest["runs"]}
    out = {}
    for entry in manifest["runs"]:
        doc = {"schema-version": SCHEMA_VERSION, "tag": tags[entry["name"]], **common}
        doc["research goal"] = {**given.get("research goal", {}), **common["research goal"]}
        doc["method"] = _method(result, entry, specs)
        if "actor" in given:
            doc["actor"] = given["actor"]
        doc["data"] = _data(manifest)
        out[entry["name"]] = {k: v for k, v in doc.items() if v not in (None, {})}
    return out


def _platform(manifest: dict) -> dict:
    v = manifest["versions"]
    machine = manifest.get("machine") or {}
    cpu = machine.get("cpu", {})
    hardware: dict = {
        "cpu": {
            "model": cpu.get("model"),
            "architecture": cpu.get("architecture"),
            "operation mode": f"{cpu['bits']}-bit" if cpu.get("bits") else None,
            "number of cores": cpu.get("cores"),
        }
    }
    if machine.get("ram_bytes"):
        hardware["ram"] = f"{round(machine['ram_bytes'] / 1024**3, 2)} GB"  # repro_eval's form
    system = machine.get("os", {})
    python = [f"python=={v['python']}"] if "python" in v else []  # versions gathered (none: a report rendered alone)
    python += [f"{k}=={val}" for k, val in v.items() if k not in _NOT_PACKAGES]
    java = [f"{k}=={v[k]}" for k in ("java", "lucene") if k in v]
    return {
        "hardware": _drop_none(hardware),
        "operating system": _drop_none(
            {
                "kernel": " ".join(filter(None, (system.get("system"), system.get("kernel")))) or None,
                "distribution": system.get("distribution"),
            }
        ),
        "software": {
            "libraries": {"python": python, **({"java": java} if java else {})},
            "retrieval toolkit": [f"{k}=={v[k]}" for k in ("harness", "anserini") if k in v],
        },
    }


def command_line(verb: str, path: str, overrides: Sequence[str] = ()) -> str:
    """The command that made a run, as a shell reads it back (``shlex.split`` gives its words):
    ``harness VERB CONFIG`` and each override as given (``--set KEY=VALUE``, ``--output DIR``:
    the flag and its value quoted apart; the API's ``overrides[...]=...`` and ``output=...`` as
    written, which no shell runs)."""
    parts = [shlex.join(["harness", verb, path])]
    for given in overrides:
        flag, _, value = given.partition(" ")
        parts.append(shlex.join([flag, value]) if flag.startswith("--") and value else given)
    return " ".join(parts)


def _implementation(manifest: dict, verb: str) -> dict:
    config = manifest["config"]
    cmd = command_line(verb, config["path"], config.get("overrides") or ())
    checkout = manifest.get("checkout") or {}
    source = {"lang": ["Python", "Java"], **checkout}
    return {"executable": {"cmd": cmd, "config sha256": config["sha256"]}, "source": source}


def _research_goal(result: ExperimentResult, manifest: dict, tags: dict[str, str]) -> dict:
    """The evaluation part: the measures reported (trec_eval's names where trec_eval computes the
    same value, as the schema proposes) and, with ``compare:``, the baselines and the test."""
    if not result.evaluations:
        return {}
    evaluation: dict = {"reported_measures": [_trec_name(m) for m in result.config.measures]}
    stats = manifest.get("stats_policy")
    if stats:
        if isinstance(stats["baseline"], list):
            evaluation["baseline"] = [tags.get(b, b) for b in stats["baseline"]]
        test = {"name": IR_METADATA_TESTS[stats["test"]]}
        if stats["correction"] in IR_METADATA_CORRECTIONS:
            test["correction method"] = IR_METADATA_CORRECTIONS[stats["correction"]]
        evaluation["significance test"] = [test]
    return {"evaluation": evaluation}


def _trec_name(measure: Measure) -> str:
    m = parse_measure(measure)
    names = trec_eval_name(m) if m.rel == 1 else None
    return names[1] if names else str(m)


def _method(result: ExperimentResult, entry: dict, specs: dict[str, str]) -> dict:
    """The run's making: for a searched run, the analyzer and each stage of its spec (the model,
    then the expansion that reranks it); a cross-validated, fused or file run, as the manifest
    describes it."""
    source = entry.get("source", {})
    if "file" in source:  # made elsewhere: the file is all the harness knows
        return {"retrieval": [{"name": entry["name"], "method": entry["spec"], "file": source["file"]}]}
    if "fusion" in source:
        # the parts, then the fusion of their outputs (its parameters beside its spec, which names them too)
        fusion = {k: v for k, v in source["fusion"].items() if k not in ("method", "runs")}
        parts = source["fusion"]["runs"]
        stages = [{"name": p, "method": specs.get(p, p)} for p in parts]
        return {"retrieval": [*stages, {"name": entry["name"], "method": entry["spec"], **fusion, "ensembles": parts}]}
    method: dict = {"automatic": True, "score ties": "alphabetical order", "indexing": _indexing(result)}
    if "cross_validated" in entry:
        tuned = entry["cross_validated"]
        chosen = [{"fold": f["fold"], "method": f["chosen"]} for f in tuned["folds"]]
        method["retrieval"] = [
            {"name": entry["name"], "method": entry["spec"], "measure": tuned["measure"], "folds": chosen}
        ]
        return {**method, "depth": result.config.depth}
    sim = next(r.spec for r in result.runs if r.name == entry["name"])
    assert isinstance(sim, Similarity)  # a searched run: the others' sources returned above
    stages = [{"name": sim.model, "method": str(sim.base), **sim.params}]
    if sim.expansion:
        expansion = entry["spec"][len(str(sim.base)) + 1 :]  # the spec's part after "+"
        stages.append({"name": sim.expansion, "method": expansion, **sim.expansion_params, "reranks": sim.model})
    return {**method, "retrieval": stages, "spec": entry["spec"], "depth": result.config.depth}


def _indexing(result: ExperimentResult) -> dict:
    """The analyzer (policies.LANGUAGES: Anserini's for each language); for English, the stemmer
    and stopwords that are its options (Lucene's English stopword list, or none)."""
    cfg = result.config
    out: dict = {"analyzer": LANGUAGES[cfg.language]}
    if cfg.language == DEFAULT_LANGUAGE:
        out["stemmer"] = cfg.stemmer
        out["stopwords"] = "Lucene" if cfg.stopwords else "none"
    return out


def _data(manifest: dict) -> dict:
    index, topics, qrels = manifest["index"], manifest["topics"], manifest.get("qrels")
    collection = index.get("collection") or {}
    where = collection.get("path") or index["path"]
    tc: dict = {
        "name": Path(where).name,
        "source": where,
        "topics": topics["path"],
        **({"qrels": qrels["path"]} if qrels else {}),
    }
    ids = [  # the manifest's formats are values until written (formats.catalog); their texts here
        f.removeprefix(IRDS).split("#")[0]
        for f in (str(topics["format"]), str((qrels or {}).get("format", "")))
        if f.startswith(IRDS)
    ]
    if ids:
        tc["ir_datasets"] = ids[0]
    tc["index fingerprint"] = index["fingerprint"]
    tc["topics sha256"] = topics.get("sha256")
    if qrels:
        tc["qrels sha256"] = qrels.get("sha256")
    return {"test collection": _drop_none(tc)}


def _drop_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}
