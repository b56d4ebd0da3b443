"""A JSON Schema (draft 2020-12) of experiment configs, generated from ``SCHEMA``, the similarity
registry and the measure registry: the same sources as validation and the reference of docs/config.md.

Editors use it for completion and checking (``harness schema``; docs/config.md "Editor support"). It
checks the shape (keys, types, choices, ranges, measure syntax); what needs the file system or
the other keys (paths exist, ``expect`` names runs of the config) is ``harness validate``'s job.

>>> s = json_schema()
>>> s["properties"]["depth"]
{'description': 'Documents retrieved per topic.', 'type': 'integer', 'minimum': 1, 'default': 1000}
"""

from __future__ import annotations

import math
import re

from harness.config.execution import SCHEDULER_PATTERN
from harness.config.keys import Key
from harness.config.schema import SCHEMA
from harness.config.schema.study import ENTRY_KEYS, RESERVED_NAMES, STUDY_KEY
from harness.config.schema.topics import TOPICS
from harness.config.sources import FILE_FORMAT_KEY, FILE_KEY, FUSE_KEY
from harness.formats.catalog import TOPIC_FORMATS
from harness.metrics.measures import ALIASES, MEASURES
from harness.policies import ALL_PAIRS, MANY_SYSTEM_TESTS
from harness.specs.models import EXPANSIONS, MODEL_NAMES, MODELS, model_params
from harness.specs.params import JAVA_FLOAT_MAX, JAVA_INT_MAX, ParamSpec, format_value

__all__ = ["json_schema", "DIALECT"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _nocase(name: str) -> str:
    """A regex matching ``name`` in any case (ECMA-262 patterns have no inline flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in name)


def _measure_pattern() -> str:
    """Name[(options)][@cut-off][(options)] as parse_measure reads it: per family, the cut-off
    required, optional or absent (a recall level in [0, 1] for IPrec), and only its options; a
    family named after another evaluation with that name before or after the cut-off
    (``MRR@10(msmarco)``, ``MRR(msmarco)@10``)."""
    option = {"rel": "rel=[1-9][0-9]*", "gain": "gain=(linear|exp)", "beta": r"beta=([0-9]+(\.[0-9]*)?|\.[0-9]+)"}
    forms = []
    for name, info in MEASURES.items():
        options = info.options + (("rel",) if info.with_rel else ())  # NumRet(rel=2) = NumRelRet(rel=2)
        if options:
            one = "(" + "|".join(option[o] for o in options) + ")"
            opts = rf"(\({one}(,{one})*\))?"
        else:
            opts = ""
        cut = r"@(0(\.[0-9]*)?|1(\.0*)?|\.[0-9]+)" if info.float_cutoff else "@[0-9]+"
        cut = {"required": cut, "optional": f"({cut})?", "none": ""}[info.cutoff]
        base, paren, evaluation = name.partition("(")
        if paren:  # a family named after another evaluation, MRR(msmarco): no options, before or after the cut-off
            tag = r"\(" + _nocase(evaluation.removesuffix(")")) + r"\)"
            forms += [f"{_nocase(base)}{cut}{tag}", f"{_nocase(base)}{tag}{cut}"]
            continue
        names = "(" + "|".join(_nocase(n) for n in [name, *(a for a, f in ALIASES.items() if f == name)]) + ")"
        forms.append(f"{names}{opts}{cut}{opts if info.cutoff != 'none' else ''}")
        if info.cutoff != "none":  # trec_eval style, no options: P_5, P.5, ndcg_cut_10, iprec_at_recall_0.50
            trec_cut = r"[_.](0(\.[0-9]+)?|1(\.0+)?)" if info.float_cutoff else "[_.][0-9]+"
            forms.append(f"{names}{trec_cut}" + ("" if info.cutoff == "required" else "?"))
        if "beta" in info.options:  # trec_eval's set_F.0.5: beta
            forms.append(rf"{names}[_.][0-9]+(\.[0-9]+)?")
    return "^(" + "|".join(forms) + ")$"


def _choice(choices) -> dict:
    """One of ``choices`` in any case, as ParamSpec.check reads it (the enum for completion)."""
    return {"anyOf": [{"enum": list(choices)}, {"type": "string", "pattern": _one_of(choices)}]}


def _one_of(choices) -> str:
    return "^(" + "|".join(_nocase(c) for c in choices) + ")$"


def _value(spec: ParamSpec) -> dict:
    """A parameter's value as ParamSpec.check takes it: bounds, and Java's int and float range."""
    if spec.kind == "choice":
        return _choice(spec.choices)
    if spec.kind == "bool":
        return {"type": "boolean"}
    out: dict = {"type": "integer" if spec.kind == "int" else "number"}
    if not math.isinf(spec.low):
        out["exclusiveMinimum" if spec.low_open else "minimum"] = spec.low
    if not math.isinf(spec.high):
        out["exclusiveMaximum" if spec.high_open else "maximum"] = spec.high
    else:
        out["maximum"] = JAVA_INT_MAX if spec.kind == "int" else JAVA_FLOAT_MAX
    return out


def _conditional(family: str, fixed: dict) -> list[ParamSpec]:
    """The parameters of ``family`` that apply only with some values of a choice left free
    (dfr's c with normalization h1 or h2), not those that apply with every value."""
    choices = {s.name: s.choices for s in MODELS[family].params if s.kind == "choice"}
    return [
        s
        for s in MODELS[family].params
        if s.when and s.when[0] not in fixed and s.name not in fixed and set(choices[s.when[0]]) - set(s.when[1])
    ]


def _params(specs, conditional=()) -> dict:
    out = {}
    for s in specs:
        when = f"; applies only with {s.when[0]} {' or '.join(s.when[1])}" if s in conditional else ""
        out[s.name] = {
            "description": f"{s.doc}; default {format_value(s.default)}{when}; a list is a sweep",
            "oneOf": [_value(s), {"type": "array", "items": _value(s), "minItems": 1}],
        }
    return out


def _applies_only(family: str, spec: ParamSpec) -> dict:
    """``if`` the choice that governs ``spec`` is (or, absent, defaults to) a value outside
    ``spec.when``, or a sweep of the choice holds one, ``then`` ``spec`` may not be given."""
    assert spec.when is not None  # asked only of a parameter that applies with some choices
    gov, allowed = spec.when
    other = {"not": {"pattern": _one_of(allowed)}}
    outside = {
        "required": [gov],
        "properties": {gov: {"anyOf": [{"type": "string", **other}, {"type": "array", "contains": other}]}},
    }
    default = next(s.default for s in MODELS[family].params if s.name == gov)
    cond = outside if default in allowed else {"anyOf": [{"not": {"required": [gov]}}, outside]}
    return {"if": cond, "then": {"not": {"required": [spec.name]}}}


def _runs() -> dict:
    """One object per model (and Anserini shortcut) with the parameters it takes, as the loader
    reads them (specs.models.model_params); an expansion is a key of its parameters, for the models
    that take one. A parameter that applies only with a choice (dfr c with h1/h2) says so and is
    refused with another (``if``/``then``)."""
    expansions = {
        name: {
            "anyOf": [
                {"type": "null"},
                {"type": "object", "properties": _params(e.params), "additionalProperties": False},
            ]
        }
        for name, e in EXPANSIONS.items()
    }
    bad = "/\\\\\\u0000-\\u001f\\u007f"  # path separators and control characters (config.runs)
    name_schema = {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": f"^[^.{bad} ](?:[^{bad}]*[^{bad} ])?$",  # nor a leading '.' (a hidden run file)
        "description": "The run's name in tables, plots and file names (default: an automatic one); "
        "unique, and what `fuse.runs`, `expect` and `compare.baseline` name it by",
    }
    models = []
    for model in MODEL_NAMES:
        family, fixed, specs, _ = model_params(model)
        conditional = _conditional(family, fixed)
        body: dict = {
            "type": "object",
            "properties": {**_params(specs, conditional), **({} if MODELS[family].no_expansion else expansions)},
            "additionalProperties": False,
        }
        if conditional:
            body["allOf"] = [_applies_only(family, s) for s in conditional]
        models.append(
            {
                "type": "object",
                "properties": {
                    model: {"anyOf": [{"type": "null"}, body]},
                    "name": name_schema,
                },
                "required": [model],
                "additionalProperties": False,
            }
        )
    bare = {
        "enum": list(MODEL_NAMES),
        "description": "A model's name alone: that model with its defaults",
    }
    return {"type": "array", "minItems": 1, "items": {"oneOf": [bare, *models, *_sources(name_schema)]}}


def _sources(name: dict) -> list[dict]:
    """The entries that are not searched (harness.config.sources): `file: PATH`, `fuse: {...}`."""
    lists = {
        "names": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2},
        "numbers": {"type": "array", "items": {"type": "number"}, "minItems": 2},
    }
    fuse = {
        "description": FUSE_KEY.doc,
        "type": "object",
        "properties": {
            k.name: {"description": k.doc, **lists[k.type]} if k.type in lists else _key(k) for k in FUSE_KEY.keys
        },
        "required": [k.name for k in FUSE_KEY.keys if k.required],
        "additionalProperties": False,
    }
    file = {"description": FILE_KEY.doc + " Relative to the config file's folder.", "type": "string", "minLength": 1}
    extra = {"file": {"format": _key(FILE_FORMAT_KEY)}, "fuse": {}}
    return [
        {
            "type": "object",
            "properties": {kind: body, "name": name, **extra[kind]},
            "required": [kind],
            "additionalProperties": False,
        }
        for kind, body in (("file", file), ("fuse", fuse))
    ]


def _key(key: Key) -> dict:
    out: dict = {"description": key.doc}
    t = key.type
    if t == "section":
        obj = {
            "type": "object",
            "properties": {k.name: _key(k) for k in key.keys},
            "additionalProperties": False,
        }
        required = [k.name for k in key.keys if k.required]
        if required:
            obj["required"] = required
        if key is SCHEMA:
            out.update(obj)
        else:  # a section written but left empty (`compare:`) is there with its defaults
            out["anyOf"] = [{"type": "null"}, obj] + ([{"type": "string", "minLength": 1}] if key.shorthand else [])
            out["anyOf"] += [{"type": "boolean"}] if key.switch else []
    elif t == "string":
        out.update(type="string", pattern=f"^({key.pattern})$" if key.pattern else ".")
    elif t == "strings":
        out.update(type="array", items={"type": "string", "minLength": 1})
    elif t in ("choice", "collection-format"):
        out["enum"] = list(key.choices)
    elif t == "bool":
        out["type"] = "boolean"
    elif t in ("int", "number"):
        out["type"] = "integer" if t == "int" else "number"
        if key.minimum is not None:
            out["exclusiveMinimum" if key.exclusive else "minimum"] = key.minimum
        if key.maximum is not None:
            out["exclusiveMaximum" if key.exclusive else "maximum"] = key.maximum
    elif t == "path":
        out.update(type="string", minLength=1)
    elif t == "topic-format":  # the names, and the formats that take an argument after a colon
        written = [f for f in TOPIC_FORMATS.values() if f.written]
        out["anyOf"] = [{"enum": [f.name for f in written if not f.argument]}] + [
            {"type": "string", "pattern": rf"^{re.escape(f.name)}:\S+$"} for f in written if f.argument
        ]
    elif t == "runs":
        out.update(_runs())
    elif t in ("measures", "compare-measures"):
        out.update(type="array", items={"type": "string", "pattern": _measure_pattern()}, minItems=1)
    elif t == "expect":
        out.update(type="object", additionalProperties={"type": "object", "additionalProperties": {"type": "number"}})
    elif t == "fields":
        weight = {"type": "number", "minimum": 0}
        names = ("contents", "title")
        out["anyOf"] = [
            {"type": "boolean"},
            {
                "type": "object",
                "properties": dict.fromkeys(names, weight),
                "required": list(names),
                "additionalProperties": False,
            },
        ]
    elif t == "scheduler":
        out.update(type="string", pattern=f"^({SCHEDULER_PATTERN})$")
    elif t == "collections":
        out.update(
            type="array",
            minItems=1,
            items={
                "type": "object",
                "properties": {k.name: _key(k) for k in key.keys},
                "required": [k.name for k in key.keys if k.required],
                "additionalProperties": False,
            },
        )
    elif t == "baseline":
        out["anyOf"] = [
            {"type": "string", "minLength": 1, "examples": [ALL_PAIRS]},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        ]
    else:  # a new Key type must say what it is here
        raise ValueError(f"no JSON Schema for config key type {t!r}")
    if key.default is not None and t != "section":
        d = key.default  # a value of its own (a topics format) is written as its text
        out["default"] = list(d) if isinstance(d, tuple) else d if isinstance(d, (str, bool, int, float)) else str(d)
    return out


def _many_system_correction(root: dict) -> None:
    """A many-system test takes no correction but `none` (policies.StatsPolicy): said in the
    compare section as an if/then, as validation refuses it."""
    section = root["properties"]["compare"]["anyOf"][1]
    section["allOf"] = [
        {
            "if": {"properties": {"test": {"enum": list(MANY_SYSTEM_TESTS)}}, "required": ["test"]},
            "then": {"properties": {"correction": {"enum": ["none"]}}},
        }
    ]


def _meta_in_a_study(root: dict) -> None:
    """`compare.meta` (on, not `false`) is a study's, of two collections or more (harness.config.study):
    an if/then at the top, as validation refuses it in a config of one collection."""
    meta = {"type": "object", "required": ["meta"], "properties": {"meta": {"not": {"const": False}}}}
    root["allOf"] = [
        {
            "if": {"required": ["compare"], "properties": {"compare": meta}},
            "then": {"required": [STUDY_KEY], "properties": {STUDY_KEY: {"minItems": 2}}},
        }
    ]


def _reserved_names(root: dict) -> None:
    """A collection's name is none of the tables' other columns or rows (RESERVED_NAMES), as
    harness.config.study refuses them."""
    name = root["properties"][STUDY_KEY]["items"]["properties"]["name"]
    name["not"] = {"enum": list(RESERVED_NAMES)}


def json_schema() -> dict:
    """The config schema as a JSON Schema document (a dict; ``json.dumps`` it)."""
    root = _key(SCHEMA)
    # a study's entries each give their topics (and collection, index, qrels, expect): a config has
    # either `topics` or `collections`, never both with the keys of one collection
    root["required"] = [k for k in root["required"] if k != TOPICS.name]
    root["anyOf"] = [{"required": [TOPICS.name]}, {"required": [STUDY_KEY]}]
    root["dependentSchemas"] = {STUDY_KEY: {"not": {"anyOf": [{"required": [k]} for k in ENTRY_KEYS if k != "name"]}}}
    _many_system_correction(root)
    _meta_in_a_study(root)
    _reserved_names(root)
    return {
        "$schema": DIALECT,
        "$id": "harness-config.schema.json",
        "title": "harness experiment config",
        **root,
        "description": "An experiment config of the harness. Generated by `harness schema` from "
        "harness.config.SCHEMA; `harness validate` checks what a schema cannot (paths exist, "
        "run names in expect and compare.baseline).",
    }
