"""Measures as values: a family of the one table (harness.metrics.families) with its cut-off and
options, one canonical text form (ir_measures style) that parses back to itself: ``P@10``,
``AP``, ``nDCG(gain=exp)@10``, ``AP(rel=2)``, ``IPrec@0.5``, ``MRR@10(msmarco)`` (MS MARCO's
official computation); the parser of that text and of the names people type (trec_eval's, ``MRR``,
``recall@100``).

>>> m = parse_measure("ndcg@10")
>>> str(m), parse_measure(str(m)) == m
('nDCG@10', True)
>>> str(parse_measure("P@5(rel=2)"))
'P(rel=2)@5'
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass

from harness.errors import DataError
from harness.metrics.families import FAMILIES, MEASURES, MeasureInfo

__all__ = ["Measure", "MeasureInfo", "MEASURES", "ALIASES", "parse_measure", "parse_measures", "reads_ranks"]


_GAINS = ("linear", "exp")
_LOWER = {k.lower(): k for k in MEASURES}


@dataclass(frozen=True)
class Measure:
    """A measure value. Build it with :func:`parse_measure`; ``str()`` is canonical."""

    name: str
    cutoff: int | float | None = None
    rel: int = 1
    gain: str = "linear"
    beta: float = 1.0  # SetF's (trec_eval set_F's parameter)
    # trec_eval's parameter list, for a family whose trec_eval name takes one (the table's
    # trec_params: gains by level, 11pt_avg's levels, set_F's beta, utility's coefficients,
    # relstring's length), as `harness trec_eval` reads it (harness.metrics.trec_names); the
    # canonical syntax has no place for it, and () means the family's own
    params: tuple = ()

    def __post_init__(self):
        info = FAMILIES.get(self.name)
        if info is None:
            raise ValueError(f"unknown measure {self.name!r}; valid measures: {_valid()}")
        c = self.cutoff
        if info.cutoff == "required" and c is None:
            raise ValueError(f"{info.written()} needs a cut-off, e.g. {info.written('@' + _example(info))}")
        if info.cutoff == "none" and c is not None:
            raise ValueError(f"{self.name} takes no cut-off (got @{c})")
        if c is not None:
            if info.float_cutoff:
                if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 1.0:
                    raise ValueError(f"{self.name}@r needs a recall level 0 <= r <= 1 (got {c!r})")
                object.__setattr__(self, "cutoff", float(c))
            elif isinstance(c, bool) or not isinstance(c, int) or c < 1:
                raise ValueError(f"{self.name}@k needs an integer k >= 1 (got {c!r})")
        if isinstance(self.rel, bool) or not isinstance(self.rel, int) or self.rel < 1:
            raise ValueError(f"{self.name}: rel must be an integer >= 1 (got {self.rel!r})")
        if self.rel != 1 and "rel" not in info.options:
            raise ValueError(f"{self.name} takes no rel= option")
        if self.gain not in _GAINS:
            raise ValueError(f"{self.name}: gain must be one of {', '.join(_GAINS)} (got {self.gain!r})")
        if self.gain != "linear" and "gain" not in info.options:
            raise ValueError(f"{self.name} takes no gain= option")
        b = self.beta
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0.0 <= b < math.inf:
            raise ValueError(f"{self.name}: beta must be a finite number >= 0 (got {b!r})")
        object.__setattr__(self, "beta", float(b))
        if self.beta != 1.0 and "beta" not in info.options:
            raise ValueError(f"{self.name} takes no beta= option (only SetF)")
        if not isinstance(self.params, tuple):
            raise ValueError(f"{self.name}: params must be a tuple (got {self.params!r})")
        if self.params and (info.trec_params == "none" or c is not None):
            raise ValueError(f"{self.name}{'@k' if c is not None else ''} takes no trec_eval parameter list")

    def __str__(self) -> str:
        opts = []
        if self.gain != "linear":
            opts.append(f"gain={self.gain}")
        if self.rel != 1:
            opts.append(f"rel={self.rel}")
        if self.beta != 1.0:
            opts.append(f"beta={self.beta!r}")
        if self.params:  # trec_eval's list, as its -m writes it after the name's '.'
            opts.append(
                "params=" + ";".join(f"{p[0]}={p[1]!r}" if isinstance(p, tuple) else repr(p) for p in self.params)
            )
        cut = "" if self.cutoff is None else f"@{self.cutoff!r}"
        if opts:
            return f"{self.name}({','.join(sorted(opts))}){cut}"
        return self.info.written(cut)  # MRR@10(msmarco): a family named after another evaluation

    @property
    def info(self) -> MeasureInfo:
        return FAMILIES[self.name]


def _valid() -> str:
    forms = {"required": "@k", "optional": "[@k]", "none": ""}
    return ", ".join(i.written(forms[i.cutoff]) for i in MEASURES.values())


def _evaluation(word: str) -> str:
    """A hint when ``word`` names another evaluation of a family (``RR@10(msmarco)``)."""
    info = next((i for i in MEASURES.values() if i.name.lower().endswith(f"({word.lower()})")), None)
    return "" if info is None else f"; ({word}) is {info.written('@' + _example(info))}, a measure of its own"


def reads_ranks(measures) -> bool:
    """Whether any of ``measures`` (Measure values) reads a run's rank column as written
    (MRR@10(msmarco)): run files are then read with it (harness.formats.run_files.read_run_file)."""
    return any(m.info.ranks for m in measures)


def _example(info: MeasureInfo) -> str:
    return "0.5" if info.float_cutoff else "10"


_SYNTAX = re.compile(
    r"(?P<name>[A-Za-z0-9_-]+)(?:\((?P<o1>[^()]*)\))?"
    r"(?:@(?P<cut>[0-9.]+))?(?:\((?P<o2>[^()]*)\))?"
)


_DECIMAL = re.compile(r"\d+(?:\.\d*)?|\.\d+")  # beta=: plain decimals (the JSON Schema's pattern too)


# Names people type, lower-cased -> family of MEASURES: trec_eval's names of those families (the
# table's ``trec`` and ``trec_cut``: ``map``, ``ndcg_cut``, ``recip_rank``...; its cut-off follows
# ``_`` or ``.``: ``P_5``, ``P.5``, ``ndcg_cut_10``; ``set_F.BETA`` is SetF(beta=BETA)), then common
# spellings (``MAP``, ``MRR``, ``recall@100``). ir_measures' names are the canonical ones. A
# trec_eval name belongs to the family whose values *equal* its own (trec_eval's ``set_F`` is SetF,
# not F1@k). trec_eval's measures that only `harness trec_eval` computes (FAMILIES beyond MEASURES:
# gm_map, utility, Rprec_mult, relstring, prefs_*, *_avgjg ...) are unknown here.
_SPELLINGS = {
    "mrr": "RR",
    "precision": "P",
    "prec": "P",
    "r-prec": "Rprec",
    "r_prec": "Rprec",
    "rprecision": "Rprec",
    "r-precision": "Rprec",
}
ALIASES: dict[str, str] = {
    **{
        trec.lower(): name
        for name, info in MEASURES.items()
        for trec in (info.trec, info.trec_cut)
        if trec and trec.lower() != name.lower()
    },
    **_SPELLINGS,
}
# trec_eval style: a family, then "_" or "." and the cut-off (the shortest family that fits).
_TREC_STYLE = re.compile(r"(?P<name>[A-Za-z0-9_-]+?)(?:[_.](?P<cut>\d+(?:\.\d+)?))?")


def _family(word: str) -> str | None:
    return _LOWER.get(word.lower()) or ALIASES.get(word.lower())


def _did_you_mean(word: str) -> str:
    names = list(MEASURES) + [a for a in ALIASES if len(a) > 2]
    by_lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    if not close:
        return ""
    target = by_lower[close[0]]
    canon = _family(target)
    return f"; did you mean {target!r}" + (f" (= {canon})" if canon != target else "") + "?"


def parse_measures(items, *, source: str = "measures") -> list[Measure]:
    """The one parser of measure lists (the command line's -m, the API's ``measures=``, the
    evaluate verb): a name or a sequence of names (or Measures), deduplicated in order. A bad
    name or an empty list is a DataError naming ``source``.

    >>> [str(m) for m in parse_measures(["map", "AP", "ndcg_cut_10"])]
    ['AP', 'nDCG@10']
    """
    if isinstance(items, (str, Measure)):
        items = [items]
    elif not isinstance(items, (list, tuple)) and not hasattr(items, "__iter__"):
        raise DataError(source, f"expected a measure name or a list of them, e.g. ['AP', 'nDCG@10'] (got {items!r})")
    out: list[Measure] = []
    for text in items:
        try:
            m = parse_measure(text)
        except ValueError as e:
            raise DataError(source, str(e)) from None
        if m not in out:
            out.append(m)
    if not out:
        raise DataError(source, "no measures given, e.g. ['AP', 'nDCG@10']")
    return out


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``Name[(opt=v,...)][@cutoff]`` (options may also follow the cut-off). Family
    names are case-insensitive; trec_eval's names and common spellings are accepted too
    (``map``, ``ndcg_cut_10``, ``P.5``, ``MRR``, see :data:`ALIASES`) and parse to the
    canonical measure. Unknown or malformed text -> ValueError listing what is valid.

    >>> [str(parse_measure(t)) for t in ("map", "ndcg_cut_10", "P.5", "MRR", "recall@100")]
    ['AP', 'nDCG@10', 'P@5', 'RR', 'R@100']
    """
    if isinstance(text, Measure):
        if not text.info.offered:
            raise ValueError(
                f"{text.name} is computed by `harness trec_eval` only (its trec_eval measure); valid measures: {_valid()}"
            )
        return text
    compact = str(text).replace(" ", "")
    t = _TREC_STYLE.fullmatch(compact)
    if t and "@" not in compact and (fam := _family(t["name"])) is not None and _family(compact) is None:
        if fam == "SetF" and t["cut"] is not None:  # trec_eval's set_F.BETA: the parameter is beta
            compact = f"SetF(beta={t['cut']})"
        else:
            compact = fam + (f"@{t['cut']}" if t["cut"] is not None else "")
    m = _SYNTAX.fullmatch(compact)
    if not m:
        raise ValueError(
            f"cannot parse measure {text!r}: expected Name, Name@k or "
            f"Name(rel=2,gain=exp)@k; valid measures: {_valid()}"
        )
    name = _family(m["name"])
    groups = [m["o1"], m["o2"]]
    for i, group in enumerate(groups):  # MRR@10(msmarco): a family named after another evaluation
        other = _LOWER.get(f"{m['name']}({group})".lower()) if group and "=" not in group else None
        if other is not None:
            name, groups[i] = other, None
            break
    if name is None:
        raise ValueError(
            f"unknown measure {m['name']!r} in {text!r}{_did_you_mean(m['name']) or '.'} Valid measures: {_valid()} "
            "(trec_eval names such as map, ndcg_cut_10, P_5 and recip_rank are accepted too)"
        )
    info = MEASURES[name]
    cutoff: int | float | None = None
    if m["cut"] is not None:
        try:
            cutoff = float(m["cut"]) if info.float_cutoff else int(m["cut"])
        except ValueError:
            raise ValueError(
                f"bad cut-off {m['cut']!r} in {text!r}: {name} needs "
                f"{'a recall level like 0.5' if info.float_cutoff else 'an integer'}"
            ) from None
    kw: dict = {}
    for group in groups:
        for part in filter(None, (group or "").split(",")):
            key, eq, val = part.partition("=")
            if not eq or key not in ("rel", "gain", "beta"):
                raise ValueError(
                    f"bad option {part!r} in {text!r}; options are rel=N, "
                    f"gain=linear|exp (only for {', '.join(n for n, i in MEASURES.items() if 'gain' in i.options)}) "
                    f"and beta=B (only for SetF){_evaluation(part)}"
                )
            if key == "rel":
                try:
                    kw["rel"] = int(val)
                except ValueError:
                    raise ValueError(f"rel must be an integer >= 1 in {text!r} (got {val!r})") from None
            elif key == "beta":
                if not _DECIMAL.fullmatch(val):
                    raise ValueError(f"beta must be a number >= 0 such as 0.5 in {text!r} (got {val!r})")
                kw["beta"] = float(val)
            else:
                kw["gain"] = val
    if "rel" in kw and info.with_rel:  # ir_measures: NumRet(rel=N) is NumRelRet(rel=N)
        name = info.with_rel
    return Measure(name, cutoff, **kw)
