"""A run's identity: what a run of an experiment is, as one of a small closed set of frozen values,
each with one canonical text that parses back to itself. That text names the run's file, its report
columns and its cache key, and is what ``expect`` and ``compare.baseline`` may name it by.

- searched: a :class:`~harness.specs.similarity.Similarity` (``bm25(k1=0.9,b=0.4)``);
- tuned: a :class:`Tuned` run, a swept family cross-validated (``dirichlet(cv:AP,folds=5,seed=42)``);
- from a file: a :class:`FileRun` (``file(runs/bm25.trec)``, ``file(run.tsv,format=msmarco)``);
- fused: a :class:`FusedRun` of other runs (``fuse(rrf,rrf_k=60,depth=1000,k=1000:bm25(k1=0.9,b=0.4)+file(x.trec))``).

Code asks the value (``isinstance(run, Tuned)``, ``run.family``), never the text.

    >>> [type(parse_run(t)).__name__ for t in ("bm25", "dirichlet(cv:AP,folds=5,seed=42)", "file(a.trec)")]
    ['Similarity', 'Tuned', 'FileRun']
    >>> text = "fuse(rrf,rrf_k=60,depth=1000,k=1000:bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=10,original_query_weight=0.5)+file(x.trec))"
    >>> [str(p) for p in parse_run(text).parts], str(parse_run(text)) == text
    (['bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=10,original_query_weight=0.5)', 'file(x.trec)'], True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from harness.policies import DEFAULT_RUN_FORMAT, FUSION_METHODS, RUN_FORMATS, FusionPolicy
from harness.specs.params import format_value
from harness.specs.similarity import Similarity

__all__ = ["Tuned", "FileRun", "FusedRun", "RunSpec", "parse_run"]

_TUNED = re.compile(
    r"([A-Za-z][A-Za-z0-9_]*(?:\+[A-Za-z][A-Za-z0-9_]*)?)\(cv:(.+),folds=(\d+),seed=(\d+)\)\Z"
)  # model or model+expansion
_TUNED_HEAD = re.compile(r"[^()]*\(cv:")  # a call whose first argument is cv:MEASURE


@dataclass(frozen=True)
class Tuned:
    """A cross-validated run: ``family(cv:MEASURE,folds=K,seed=S)``, the system that, on each
    fold's topics, uses the setting of ``family`` (a model, with its expansion: ``bm25+rm3``)
    chosen on the other folds by ``measure`` (its canonical name, as a harness.metrics Measure
    writes it).

    >>> s = Tuned.parse("dirichlet(cv:AP,folds=5,seed=42)")
    >>> s.family, s.measure, s.folds, s.seed, str(s) == "dirichlet(cv:AP,folds=5,seed=42)"
    ('dirichlet', 'AP', 5, 42, True)
    """

    family: str
    measure: str
    folds: int
    seed: int

    @property
    def model(self) -> str:
        """The model of the family (``bm25`` of ``bm25+rm3``), as a Similarity's."""
        return self.family.partition("+")[0]

    @classmethod
    def parse(cls, text: str) -> Tuned:
        m = _TUNED.match(text.replace(" ", ""))
        if not m:
            raise ValueError(
                f"cannot parse cross-validated run {text!r}; expected e.g. dirichlet(cv:AP,folds=5,seed=42)"
            )
        return cls(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)))

    def __str__(self) -> str:
        return f"{self.family}(cv:{self.measure},folds={self.folds},seed={self.seed})"


@dataclass(frozen=True)
class FileRun:
    """A run file: ``written``, its path as the config writes it (what names the run), ``format``
    a key of policies.RUN_FORMATS, and ``path``, where it is read (absolute, resolved against the
    config's folder; as written when parsed from its text). Never searched, tuned nor cached."""

    path: Path = field(compare=False)
    written: str
    format: str = DEFAULT_RUN_FORMAT  # left out of its text: file(runs/bm25.trec)
    model: ClassVar[str] = "file"  # what reports group runs by (a Similarity's model and family)
    family: ClassVar[str] = "file"

    @classmethod
    def parse(cls, text: str) -> FileRun:
        if not (text.startswith("file(") and text.endswith(")") and len(text) > 6):
            raise ValueError(f"cannot parse run file {text!r}; expected e.g. file(runs/bm25.trec)")
        written, fmt = text[5:-1], DEFAULT_RUN_FORMAT
        head, sep, tail = written.rpartition(",format=")
        if sep and tail in RUN_FORMATS and tail != DEFAULT_RUN_FORMAT:
            written, fmt = head, tail
        return cls(Path(written), written, fmt)

    def __str__(self) -> str:
        return (
            f"file({self.written})"
            if self.format == DEFAULT_RUN_FORMAT
            else f"file({self.written},format={self.format})"
        )


@dataclass(frozen=True)
class FusedRun:
    """A fusion of other runs of the config (``parts``: their canonical texts, in the entry's
    order), computed by harness.fusion. Never swept, tuned nor cached: fused again from its parts."""

    policy: FusionPolicy
    parts: tuple[str, ...]
    model: ClassVar[str] = "fuse"
    family: ClassVar[str] = "fuse"

    @classmethod
    def parse(cls, text: str) -> FusedRun:
        bad = ValueError(f"cannot parse fused run {text!r}; expected e.g. fuse(rrf,rrf_k=60,depth=1000,k=1000:A+B)")
        head, sep, tail = text.partition(":")
        if not (head.startswith("fuse(") and sep and tail.endswith(")")):
            raise bad
        method, *options = head[5:].split(",")
        given: dict[str, str] = {}
        for option in options:
            key, eq, value = option.partition("=")
            if not eq or key in given:
                raise bad
            given[key] = value
        if method not in FUSION_METHODS or set(given) - {*FUSION_METHODS[method].options, "depth", "k"}:
            raise bad
        try:
            policy = FusionPolicy(method, **{k: _option(k, v) for k, v in given.items()})
        except ValueError:
            raise bad from None
        parts = _parts(tail[:-1])
        if parts is None:
            raise bad
        return cls(policy, tuple(str(p) for p in parts))

    def __str__(self) -> str:
        p = self.policy
        params = {o: getattr(p, o) for o in FUSION_METHODS[p.method].options}  # what the method reads
        if params.get("weights"):
            params["weights"] = "/".join(map(format_value, p.weights or ()))
        else:
            params.pop("weights", None)
        params.update(depth=p.depth, k=p.k)
        text = ",".join(f"{k}={format_value(v) if isinstance(v, float) else v}" for k, v in params.items())
        return f"fuse({p.method},{text}:{'+'.join(self.parts)})"


RunSpec = Similarity | Tuned | FileRun | FusedRun


def _option(key: str, value: str) -> Any:
    """A fusion option's value from its text (as FusedRun's text writes it)."""
    if key == "weights":
        return tuple(float(w) for w in value.split("/"))
    if key == "alpha":
        return float(value)
    if key == "norm":
        return value
    return int(value)  # rrf_k, depth, k


def _parts(text: str) -> list[RunSpec] | None:
    """The runs of a fusion's ``A+B+...``, each its canonical text: a '+' inside a part (an
    expansion's, a file's name, a fusion's own) is told from a separator by trying each split."""
    if not text:
        return None
    cuts = [i for i, c in enumerate(text) if c == "+"] + [len(text)]
    for i in cuts:
        head = text[:i]
        try:
            first = parse_run(head)
        except ValueError:
            continue
        if str(first) != head:
            continue
        if i == len(text):
            return [first]
        rest = _parts(text[i + 1 :])
        if rest is not None:
            return [first, *rest]
    return None


def parse_run(text: str) -> RunSpec:
    """The run ``text`` names, by its form: ``file(...)``, ``fuse(...)``, ``family(cv:...)``, or a
    similarity in any spelling Similarity.parse reads (ValueError with its message otherwise)."""
    if text.startswith("file(") and text.endswith(")"):
        return FileRun.parse(text)
    if text.startswith("fuse(") and text.endswith(")"):
        return FusedRun.parse(text)
    if _TUNED_HEAD.match(text.replace(" ", "")):
        return Tuned.parse(text)
    return Similarity.parse(text)
