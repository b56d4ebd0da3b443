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
from harness.config.schema.topics import TOPIC_FORMATS
from harness.config.sources import FILE_FORMAT_KEY, FILE_KEY, FUSE_KEY
from harness.engine.similarity import ALIASES as MODEL_ALIASES
from harness.engine.similarity import EXPANSIONS, MODELS, PRESETS, ParamSpec, format_value
from harness.metrics.measures import ALIASES, MEASURES
from harness.policies import ALL_PAIRS

__all__ = ["json_schema", "DIALECT"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _nocase(name: str) -> str:
    """A regex matching ``name`` in any case (ECMA-262 patterns have no inline flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in name)


def _measure_pattern() -> str:
    """Name[(options)][@cut-off][(options)] as parse_measure reads it: per family, the cut-off
    required, optional or absent (a recall level in [0, 1] for IPrec), and only its options."""
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
        names = "(" + "|".join(_nocase(n) for n in [name, *(a for a, f in ALIASES.items() if f == name)]) + ")"
        forms.append(f"{names}{opts}{cut}{opts if info.cutoff != 'none' else ''}")
        if info.cutoff != "none":  # trec_eval style, no options: P_5, P.5, ndcg_cut_10, iprec_at_recall_0.50
            trec_cut = r"[_.](0(\.[0-9]+)?|1(\.0+)?)" if info.float_cutoff else "[_.][0-9]+"
            forms.append(f"{names}{trec_cut}" + ("" if info.cutoff == "required" else "?"))
        if "beta" in info.options:  # trec_eval's set_F.0.5: beta
            forms.append(rf"{names}[_.][0-9]+(\.[0-9]+)?")
    return "^(" + "|".join(forms) + ")$"


def _value(spec: ParamSpec) -> dict:
    if spec.kind == "choice":
        return {"enum": list(spec.choices)}
    if spec.kind == "bool":
        return {"type": "boolean"}
    out: dict = {"type": "integer" if spec.kind == "int" else "number"}
    if not math.isinf(spec.low):
        out["exclusiveMinimum" if spec.low_open else "minimum"] = spec.low
    if not math.isinf(spec.high):
        out["exclusiveMaximum" if spec.high_open else "maximum"] = spec.high
    return out


def _params(specs) -> dict:
    return {
        s.name: {
            "description": f"{s.doc}; default {format_value(s.default)}; a list is a sweep",
            "oneOf": [_value(s), {"type": "array", "items": _value(s), "minItems": 1}],
        }
        for s in specs
    }


def _runs() -> dict:
    """One object per model (and Anserini shortcut); an expansion is a key of its parameters.
    Which parameter applies with which choice (dfr c with h1/h2) is left to `harness validate`."""
    expansions = {
        name: {
            "anyOf": [{"type": "null"}, {"type": "object", "properties": _params(specs), "additionalProperties": False}]
        }
        for name, specs in EXPANSIONS.items()
    }
    bad = "/\\\\\\u0000-\\u001f\\u007f"  # path separators and control characters (config.runs)
    name_schema = {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": f"^[^.{bad} ](?:[^{bad}]*[^{bad} ])?$",  # nor a leading '.' (a hidden run file)
        "description": "The run's label in tables, plots and file names (default: an automatic one); "
        "unique, and what `fuse.runs`, `expect` and `compare.baseline` name it by",
    }
    models = []
    for model in [*MODELS, *PRESETS, *MODEL_ALIASES]:
        family, fixed = PRESETS.get(model, (MODEL_ALIASES.get(model, model), {}))
        specs = [s for s in MODELS[family] if s.name not in fixed]
        body = {"type": "object", "properties": {**_params(specs), **expansions}, "additionalProperties": False}
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
        "enum": [*MODELS, *PRESETS, *MODEL_ALIASES],
        "description": "A model's name alone: that model with its defaults",
    }
    return {"type": "array", "minItems": 1, "items": {"oneOf": [bare, *models, *_sources(name_schema)]}}


def _sources(name: dict) -> list[dict]:
    """The entries that are not searched (harness.config.sources): `file: PATH`, `fuse: {...}`."""
    lists = {
        "labels": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2},
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
    elif t == "string":
        out.update(type="string", pattern=f"^({key.pattern})$" if key.pattern else ".")
    elif t == "choice":
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
    elif t == "topic-format":
        plain = [f for f in TOPIC_FORMATS if not f.startswith("anserini:")]
        out["anyOf"] = [{"enum": plain}, {"type": "string", "pattern": r"^anserini:\S+$"}]
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
    elif t == "baseline":
        out["anyOf"] = [
            {"type": "string", "minLength": 1, "examples": [ALL_PAIRS]},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        ]
    else:  # a new Key type must say what it is here
        raise ValueError(f"no JSON Schema for config key type {t!r}")
    if key.default is not None and t != "section":
        out["default"] = list(key.default) if isinstance(key.default, tuple) else key.default
    return out


def json_schema() -> dict:
    """The config schema as a JSON Schema document (a dict; ``json.dumps`` it)."""
    root = _key(SCHEMA)
    return {
        "$schema": DIALECT,
        "$id": "harness-config.schema.json",
        "title": "harness experiment config",
        **root,
        "description": "An experiment config of the harness. Generated by `harness schema` from "
        "harness.config.SCHEMA; `harness validate` checks what a schema cannot (paths exist, "
        "run names in expect and compare.baseline).",
    }
