"""A config varied without copying it: ``harness run CONFIG --set KEY=VALUE --output DIR`` and
``harness.run(config, overrides={...}, output=...)``. Each override replaces (or adds) one key of
the config's YAML tree before validation, so it is checked as if written in the file, and a
problem names it the way it was given (``--set index.stemer=krovetz: unknown key 'stemer'...``).

- ``KEY`` is dotted: ``index.stemmer``, ``compare.test``, ``runs.0.bm25.k1`` (a number indexes a
  list); a missing mapping on the way is created. A section written as its shorthand
  (``topics: t.tsv``) takes a key of its own (``--set topics.format=jsonl``).
- ``VALUE`` is YAML: ``--set depth=100`` is a number, ``--set 'runs=[bm25, qld]'`` a list,
  ``--set name=x`` a string; ``--set key=`` (nothing) is null.
- A path given by an override (``--set qrels=q.txt``, ``--output out``) is relative to the current
  folder, as a path typed on the command line is; the file's own paths stay relative to the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from harness.config.keys import Key
from harness.config.schema import SCHEMA
from harness.config.validated import LocatedProblem
from harness.errors import ConfigError

__all__ = [
    "Override",
    "OverrideMark",
    "OVERRIDE_NAMES",
    "parse_set",
    "given_overrides",
    "cluster_overrides",
    "python_dumper",
    "apply_overrides",
]

_STR = "tag:yaml.org,2002:str"
# how an override is named (Override.given): by the flag or the API argument that gave it
OVERRIDE_NAMES = ("--set ", "--output ", "--topics ", "--qrels ", "overrides[", "output=")
_KEY = re.compile(r"[^.\s=]+(\.[^.\s=]+)*\Z")


@dataclass(frozen=True)
class Override:
    """One key replaced: ``key`` (dotted), ``value`` (YAML text), ``given`` (how the user wrote
    it, which names it in errors and in manifest.json: ``--set depth=100``)."""

    key: str
    value: str
    given: str


class OverrideMark(yaml.Mark):
    """The place of a node an override brought: named by the override as given, with the folder
    its relative paths resolve against (the current one)."""

    def __init__(self, given: str, base: Path):
        super().__init__(given, 0, 0, 0, None, 0)  # no buffer: PyYAML reads no pointer then
        self.given = given
        self.base = base


def parse_set(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` split at its first ``=`` (a value may hold more: ``--set name=a=b``); ValueError
    saying what is expected."""
    key, sep, value = text.partition("=")
    if not sep or not _KEY.match(key.strip()):
        raise ValueError(f"expected KEY=VALUE with a dotted key, e.g. index.stemmer=krovetz (got {text!r})")
    return key.strip(), value


def given_overrides(
    sets: Sequence[str],
    overrides: Mapping | None,
    output: str | os.PathLike | None,
    flags: bool,
    data: Mapping[str, str | os.PathLike | None] | None = None,
) -> list[Override]:
    """The keys replaced in the config, in the order they apply (a later one wins): ``--set``
    (YAML text), the API's ``overrides`` (Python values, written as YAML), ``data`` (``--topics``
    and ``--qrels``: a file, ``irds:ID`` or ``pyserini:NAME``), then ``output`` (named as the
    command line's flag with ``flags``, else as the API's argument). A malformed one is a
    ConfigError naming it as given."""
    out = []
    for text in sets:
        try:
            key, value = parse_set(text)
        except ValueError as e:
            raise ConfigError("--set", [LocatedProblem("", str(e), f"--set {text}")]) from None
        out.append(Override(key, value, f"--set {text}"))
    if overrides is not None and not isinstance(overrides, Mapping):
        why = f"overrides is a dict of dotted keys and values, e.g. {{'index.stemmer': 'krovetz'}} (got {type(overrides).__name__})"
        raise ConfigError("overrides", [LocatedProblem("", why)])
    for key, value in (overrides or {}).items():
        given = f"overrides[{key!r}]"
        try:
            parse_set(f"{key}=")
        except ValueError:
            raise ConfigError(
                "overrides", [LocatedProblem("", f"{key!r} is not a dotted key like index.stemmer", given)]
            ) from None
        try:
            text = yaml.dump(value, Dumper=python_dumper(), allow_unicode=True)
        except yaml.YAMLError as e:
            raise ConfigError(
                "overrides", [LocatedProblem("", f"the value cannot be written as YAML: {e}", given)]
            ) from None
        out.append(Override(key, text, given))
    for key, file in (data or {}).items():
        if file is not None:
            out.append(Override(key, yaml.safe_dump(os.fspath(file)), f"--{key} {os.fspath(file)}"))
    if output is not None:
        path = os.fspath(output)
        out.append(Override("output", yaml.safe_dump(path), f"--output {path}" if flags else f"output={path!r}"))
    return out


def cluster_overrides(scheduler: str | None, workers: int | None, from_env: bool = False) -> list[Override]:
    """``--scheduler`` / ``--workers`` (``workers`` wins) as the keys of ``execution:`` they set,
    replaced before validation as ``--set`` replaces them: the engine is dask and the other way
    of naming the cluster is cleared, while the config's other Dask keys (timeout,
    topics_per_task, index_shards) hold. (Applied after validation, a config giving them under
    the default engine, local, was refused though the flag asked for Dask.) A scheduler
    ``from_env`` is named ``$HARNESS_SCHEDULER=ADDRESS``: a bad address is the variable's
    error, not a flag's the user never typed."""
    if workers is not None:
        given, cluster = f"--workers {workers}", {"workers": str(int(workers)), "scheduler": ""}
    elif scheduler is not None:
        given = f"$HARNESS_SCHEDULER={scheduler}" if from_env else f"--scheduler {scheduler}"
        cluster = {"scheduler": yaml.safe_dump(scheduler), "workers": ""}
    else:
        return []
    keys = {"engine": "dask", **cluster}
    return [Override(f"execution.{key}", value, given) for key, value in keys.items()]


def python_dumper() -> type[yaml.SafeDumper]:
    """yaml.safe_dump's dumper, plus the values a config built in Python holds naturally: a path
    (``pathlib.Path``, any os.PathLike) is its text, a numpy number or array (``np.float64``,
    ``np.linspace(...)``) is Python's. Anything else unknown is refused as safe_dump refuses it."""

    class Dumper(yaml.SafeDumper):
        def represent_undefined(self, data):
            if isinstance(data, os.PathLike):
                return self.represent_str(os.fspath(data))
            if type(data).__module__ == "numpy" and hasattr(data, "tolist"):
                return self.represent_data(data.tolist())
            return super().represent_undefined(data)

    # None: PyYAML's key for the representer of every type without one (types-PyYAML allows a class only)
    Dumper.add_representer(None, Dumper.represent_undefined)  # type: ignore[arg-type]
    return Dumper


def apply_overrides(root: Node, overrides: Sequence[Override], source: str, base: Path) -> None:
    """Apply each override to the config's node tree ``root`` (in place, in order: a later one
    wins). A key that cannot be reached (through a list's missing item, or a value that is not a
    mapping) or a value that is not YAML is a ConfigError naming the override."""
    problems = [LocatedProblem("", problem, o.given) for o in overrides if (problem := _apply(root, o, base))]
    if problems:
        raise ConfigError(source, problems)


def _value(o: Override, base: Path) -> Node | str:
    try:
        loader = yaml.SafeLoader(o.value)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        why = " ".join(x for x in (getattr(e, "context", None), getattr(e, "problem", None)) if x) or str(e)
        return f"the value is not YAML ({why}); quote it for the shell, e.g. --set 'key=[a, b]'"
    if node is None:  # `--set key=`: null, as `key:` in the file
        node = ScalarNode("tag:yaml.org,2002:null", "", None, None)
    _mark(node, OverrideMark(o.given, base))
    return node


def _mark(node: Node, mark: OverrideMark) -> None:
    node.start_mark = node.end_mark = mark
    if isinstance(node, MappingNode):
        for k, v in node.value:
            _mark(k, mark)
            _mark(v, mark)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            _mark(item, mark)


def _apply(root: Node, o: Override, base: Path) -> str | None:
    value = _value(o, base)
    if isinstance(value, str):
        return value
    mark = OverrideMark(o.given, base)
    parts = o.key.split(".")
    node, parent = root, root
    schema: Key | None = SCHEMA
    walked: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        # an item of `collections` (a study's entry) has the keys its Key lists
        sub = schema if schema is not None and schema.type == "collections" and part.isdigit() else None
        sub = sub or (schema.key(part) if schema is not None else None)
        if isinstance(node, ScalarNode) and schema is not None and schema.shorthand and node.tag == _STR:
            # `topics: t.tsv` with --set topics.format=jsonl: the shorthand written out
            node = _replace(parent, node, _shorthand(node, schema.shorthand))
        child: Node
        if isinstance(node, MappingNode):
            pair = next(((k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == part), None)
            if last:
                if pair is None:
                    node.value.append((ScalarNode(_STR, part, mark, mark), value))
                else:
                    node.value[node.value.index(pair)] = (pair[0], value)
                return None
            if pair is None or (isinstance(pair[1], ScalarNode) and pair[1].tag == "tag:yaml.org,2002:null"):
                child = MappingNode("tag:yaml.org,2002:map", [], mark, mark)
                if pair is None:
                    node.value.append((ScalarNode(_STR, part, mark, mark), child))
                else:
                    node.value[node.value.index(pair)] = (pair[0], child)
            else:
                child = pair[1]
        elif isinstance(node, SequenceNode) and part.isdigit():
            if int(part) >= len(node.value):
                where = ".".join(walked) or "the config"
                return f"{where} has {len(node.value)} item(s): there is no item {part} (items count from 0)"
            if last:
                node.value[int(part)] = value
                return None
            child = node.value[int(part)]
            if isinstance(child, ScalarNode) and child.tag == _STR and not last and parts[i + 1] == child.value:
                # a bare model name (`- bm25`) takes parameters as `- bm25: {}` does
                child = _replace(node, child, _shorthand(child, child.value, null=True))
        else:
            where = ".".join(walked)
            what = "a list (index it with a number)" if isinstance(node, SequenceNode) else "not a mapping"
            return f"{where} is {what} in the config, so it has no key {part!r}: set {where} whole instead"
        parent, node, schema = node, child, sub
        walked.append(part)
    return None


def _shorthand(node: ScalarNode, key: str, null: bool = False) -> MappingNode:
    """``{key: node}`` (a section's shorthand written out), or ``{key: null}``."""
    value = ScalarNode("tag:yaml.org,2002:null", "", node.start_mark, node.end_mark) if null else node
    return MappingNode(
        "tag:yaml.org,2002:map", [(ScalarNode(_STR, key, node.start_mark, node.end_mark), value)], node.start_mark
    )


def _replace(parent: Node, old: Node, new: Node) -> Node:
    if isinstance(parent, MappingNode):
        parent.value[:] = [(k, new if v is old else v) for k, v in parent.value]
    else:
        parent.value[:] = [new if v is old else v for v in parent.value]
    return new
