"""The measure registry: names, parameters, canonical text, and the trec_eval equivalents.

A measure is a frozen value with one canonical text form (ir_measures style) that parses back
to itself: ``P@10``, ``AP``, ``nDCG(gain=exp)@10``, ``AP(rel=2)``, ``IPrec@0.5``.

>>> m = parse_measure("ndcg@10")
>>> str(m), parse_measure(str(m)) == m
('nDCG@10', True)
>>> str(parse_measure("P@5(rel=2)"))
'P(rel=2)@5'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.metrics import kernels, trec_segments

__all__ = ["Measure", "MeasureInfo", "MEASURES", "ALIASES", "parse_measure", "parse_measures", "trec_eval_name"]


@dataclass(frozen=True)
class MeasureInfo:
    """One registry entry: what the family takes and what it means."""

    name: str
    cutoff: str  # "required", "optional" or "none"
    options: tuple[str, ...]  # subset of ("rel", "gain", "beta")
    doc: str
    trec: str | None = None  # trec_eval measure without cutoff (e.g. "map")
    trec_cut: str | None = None  # trec_eval measure with cutoff (e.g. "map_cut")
    float_cutoff: bool = False
    # (RankedLabels, Measure, nDCG_threshold) -> float64 per topic (harness.metrics.kernels)
    compute: Callable | None = None
    summary: str = "mean"  # trec_eval's "all" line: the mean over topics, or (counts) their sum
    on_missing: str = "zero"  # a judged topic the run lacks (missing_topics=zero): 0, or "keep" its value
    # ir_measures' spelling with an explicit rel= that names another family: its NumRet(rel=N)
    # counts the returned docs with label >= N, i.e. NumRelRet(rel=N) (pytrec_eval's num_rel_ret)
    with_rel: str | None = None


MEASURES: dict[str, MeasureInfo] = {
    m.name: m
    for m in [
        MeasureInfo(
            "P",
            "required",
            ("rel",),
            "Precision at k: relevant in the top k / k (k even when fewer are returned, as trec_eval P_k).",
            trec_cut="P",
            compute=kernels.precision,
        ),
        MeasureInfo(
            "R",
            "required",
            ("rel",),
            "Recall at k: relevant in the top k / relevant judged (0 when none; trec_eval recall_k).",
            trec_cut="recall",
            compute=kernels.recall,
        ),
        MeasureInfo(
            "F1",
            "required",
            ("rel",),
            "Harmonic mean of P@k and R@k (0 when both are 0). trec_eval has no cut-off F; "
            "equals its set_F on the run truncated at k when k docs are returned.",
            compute=kernels.f1,
        ),
        MeasureInfo(
            "AP",
            "optional",
            ("rel",),
            "Average precision (trec_eval map); AP@k sums only the top k but still divides "
            "by all relevant (trec_eval map_cut_k).",
            trec="map",
            trec_cut="map_cut",
            compute=kernels.ap,
        ),
        MeasureInfo(
            "nDCG",
            "optional",
            ("rel", "gain"),
            "Normalised DCG, gain/log2(rank+1), linear gain = label (trec_eval ndcg, "
            "ndcg_cut_k; the ideal ranks all judged docs, cut at k). Ignores rel= unless "
            "EvalPolicy(nDCG_threshold=True). gain=exp uses 2**label-1.",
            trec="ndcg",
            trec_cut="ndcg_cut",
            compute=kernels.ndcg,
        ),
        MeasureInfo(
            "RR",
            "optional",
            ("rel",),
            "Reciprocal rank of the first relevant doc, 0 if none (in the top k for RR@k); trec_eval recip_rank.",
            trec="recip_rank",
            compute=kernels.rr,
        ),
        MeasureInfo(
            "Rprec",
            "none",
            ("rel",),
            "Precision at rank R, R = relevant judged (trec_eval Rprec).",
            trec="Rprec",
            compute=kernels.rprec,
        ),
        MeasureInfo(
            "bpref",
            "none",
            ("rel",),
            "Binary preference, trec_eval 9 definition: each retrieved relevant doc scores "
            "1 - min(n, R)/min(N, R), n = judged non-relevant above it, N = judged "
            "non-relevant; summed / R.",
            trec="bpref",
            compute=kernels.bpref,
        ),
        MeasureInfo(
            "Success",
            "required",
            ("rel",),
            "1 if a relevant doc is in the top k, else 0 (trec_eval success_k).",
            trec_cut="success",
            compute=kernels.success,
        ),
        MeasureInfo(
            "IPrec",
            "required",
            ("rel",),
            "Interpolated precision at recall level r in [0, 1]: the best precision at or "
            "after the c-th relevant doc, c = int(r*R + 0.9) (trec_eval 9.0.x "
            "iprec_at_recall_r; 0 if fewer than c relevant are returned).",
            trec_cut="iprec_at_recall",
            float_cutoff=True,
            compute=kernels.iprec,
        ),
        MeasureInfo(
            "11pt",
            "none",
            ("rel",),
            "Mean of IPrec at recall 0.0, 0.1, ..., 1.0 (trec_eval 11pt_avg).",
            trec="11pt_avg",
            compute=kernels.eleven_point,
        ),
        MeasureInfo(
            "NumRet",
            "none",
            (),
            "Number of docs returned (trec_eval num_ret). ir_measures' NumRet(rel=N) is NumRelRet(rel=N).",
            trec="num_ret",
            compute=kernels.num_ret,
            summary="sum",
            with_rel="NumRelRet",
        ),
        MeasureInfo(
            "NumRel",
            "none",
            ("rel",),
            "Number of relevant judged docs (trec_eval num_rel).",
            trec="num_rel",
            compute=kernels.num_rel,
            summary="sum",
            on_missing="keep",
        ),
        MeasureInfo(
            "NumRelRet",
            "none",
            ("rel",),
            "Number of relevant docs returned (trec_eval num_rel_ret).",
            trec="num_rel_ret",
            compute=kernels.num_rel_ret,
            summary="sum",
        ),
        MeasureInfo(
            "infAP",
            "none",
            ("rel",),
            "Inferred AP (Yilmaz & Aslam), trec_eval 9.0.8's infAP: judged documents with a "
            "negative label count as in the pool but unjudged; = AP when every returned document is judged.",
            trec="infAP",
            compute=trec_segments.registry_kernel("infAP"),
        ),
        MeasureInfo(
            "SetP",
            "none",
            ("rel",),
            "Precision of the whole returned list: relevant returned / returned (trec_eval set_P).",
            trec="set_P",
            compute=kernels.set_precision,
        ),
        MeasureInfo(
            "SetR",
            "none",
            ("rel",),
            "Recall of the whole returned list: relevant returned / relevant judged (trec_eval set_recall).",
            trec="set_recall",
            compute=kernels.set_recall,
        ),
        MeasureInfo(
            "SetF",
            "none",
            ("rel", "beta"),
            "trec_eval's set_F: (beta + 1) SetP SetR / (beta SetP + SetR), 0 when nothing relevant "
            "is returned; beta defaults to 1 (the harmonic mean); SetF(beta=0.5) is trec_eval's "
            "set_F.0.5 and ir_measures' SetF(beta=0.5) (beta, not its square, as trec_eval).",
            trec="set_F",
            compute=kernels.set_f,
        ),
        MeasureInfo(
            "SetAP",
            "none",
            ("rel",),
            "SetP x SetR, trec_eval's set_map (not AP: no ranks are used).",
            trec="set_map",
            compute=kernels.set_ap,
        ),
        MeasureInfo(
            "binG",
            "none",
            ("rel",),
            "trec_eval's binG: binary gain with a discount by the non-relevant documents above "
            "(sum over relevant returned of 1/log2(2 + non-relevant above)) / relevant judged.",
            trec="binG",
            compute=trec_segments.registry_kernel("binG"),
        ),
        MeasureInfo(
            "G",
            "none",
            (),
            "trec_eval's G (gain = label, discounted by the cost of reaching each document; "
            "`harness trec_eval -m G.1=g1,2=g2` takes other gains).",
            trec="G",
            compute=trec_segments.registry_kernel("G"),
        ),
        MeasureInfo(
            "ndcg_rel",
            "none",
            (),
            "trec_eval's ndcg_rel: nDCG (gain = label) averaged over the ranks of the relevant "
            "documents (those not returned at the final value).",
            trec="ndcg_rel",
            compute=trec_segments.registry_kernel("ndcg_rel"),
        ),
        MeasureInfo(
            "Rndcg",
            "none",
            ("rel",),
            "trec_eval's Rndcg: nDCG (gain = label) averaged over the ranks where the ideal "
            "ranking's gain changes; 0 when nothing is relevant at rel.",
            trec="Rndcg",
            compute=trec_segments.registry_kernel("Rndcg"),
        ),
        MeasureInfo(
            "Judged",
            "optional",
            (),
            "Judgment rate: docs of the top k with a qrels entry / min(k, returned), as "
            "ir_measures' Judged@k (0 for an empty list; Judged: the whole list). Not in trec_eval.",
            compute=kernels.judged,
        ),
        MeasureInfo(
            "DCG",
            "optional",
            ("rel", "gain"),
            "Discounted cumulative gain, sum of gain/log2(rank+1) over the top k (not normalised; same gains as nDCG).",
            compute=kernels.dcg,
        ),
        MeasureInfo(
            "CG",
            "optional",
            ("rel", "gain"),
            "Cumulative gain: sum of gains over the top k (same gains as nDCG).",
            compute=kernels.cg,
        ),
    ]
}

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

    def __post_init__(self):
        info = MEASURES.get(self.name)
        if info is None:
            raise ValueError(f"unknown measure {self.name!r}; valid measures: {_valid()}")
        c = self.cutoff
        if info.cutoff == "required" and c is None:
            raise ValueError(f"{self.name} needs a cut-off, e.g. {self.name}@{_example(info)}")
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

    def __str__(self) -> str:
        opts = []
        if self.gain != "linear":
            opts.append(f"gain={self.gain}")
        if self.rel != 1:
            opts.append(f"rel={self.rel}")
        if self.beta != 1.0:
            opts.append(f"beta={self.beta!r}")
        s = self.name + (f"({','.join(sorted(opts))})" if opts else "")
        if self.cutoff is not None:
            s += f"@{self.cutoff!r}"
        return s

    @property
    def info(self) -> MeasureInfo:
        return MEASURES[self.name]


def _valid() -> str:
    return ", ".join(
        f"{n}@k" if i.cutoff == "required" else f"{n}[@k]" if i.cutoff == "optional" else n for n, i in MEASURES.items()
    )


def _example(info: MeasureInfo) -> str:
    return "0.5" if info.float_cutoff else "10"


_SYNTAX = re.compile(
    r"(?P<name>[A-Za-z0-9_-]+)(?:\((?P<o1>[^()]*)\))?"
    r"(?:@(?P<cut>[0-9.]+))?(?:\((?P<o2>[^()]*)\))?"
)


_DECIMAL = re.compile(r"\d+(?:\.\d*)?|\.\d+")  # beta=: plain decimals (the JSON Schema's pattern too)


# Names people type, lower-cased -> registry family. trec_eval's names (``map``, ``ndcg_cut``,
# ``recip_rank``...; its cut-off follows ``_`` or ``.``: ``P_5``, ``P.5``, ``ndcg_cut_10``) and
# common spellings (``MAP``, ``MRR``, ``recall@100``). ir_measures' names are the canonical ones.
# Only names whose values are *equal* to the family's are listed (trec_eval's ``set_F`` is SetF,
# not F1@k). trec_eval's measures with another summary than the mean (gm_map, gm_bpref), with
# parameters the registry's Measure has no place for (Rprec_mult, utility, relative_P, gains by
# level; set_F.BETA is SetF(beta=BETA)), and relstring are computed by `harness trec_eval` only; so are its preference and
# judgment-group measures (prefs_*, *_avgjg): they need judgments (trec_eval -R prefs, qrels_jg)
# that nothing else in the harness reads.
ALIASES: dict[str, str] = {
    "map": "AP",
    "map_cut": "AP",
    "ndcg_cut": "nDCG",
    "recip_rank": "RR",
    "mrr": "RR",
    "recall": "R",
    "precision": "P",
    "prec": "P",
    "r-prec": "Rprec",
    "r_prec": "Rprec",
    "rprecision": "Rprec",
    "r-precision": "Rprec",
    "success": "Success",
    "iprec_at_recall": "IPrec",
    "11pt_avg": "11pt",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "infap": "infAP",
    "set_p": "SetP",
    "set_recall": "SetR",
    "set_f": "SetF",
    "set_map": "SetAP",
}
# trec_eval style: a family, then "_" or "." and the cut-off (the shortest family that fits).
_TREC_STYLE = re.compile(r"(?P<name>[A-Za-z0-9_-]+?)(?:[_.](?P<cut>\d+(?:\.\d+)?))?")


def _family(word: str) -> str | None:
    return _LOWER.get(word.lower()) or ALIASES.get(word.lower())


def _did_you_mean(word: str) -> str:
    import difflib

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
    from harness.errors import DataError

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
    for group in (m["o1"], m["o2"]):
        for part in filter(None, (group or "").split(",")):
            key, eq, val = part.partition("=")
            if not eq or key not in ("rel", "gain", "beta"):
                raise ValueError(
                    f"bad option {part!r} in {text!r}; options are rel=N, "
                    f"gain=linear|exp (only for {', '.join(n for n, i in MEASURES.items() if 'gain' in i.options)}) "
                    "and beta=B (only for SetF)"
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


def trec_eval_name(m: Measure) -> tuple[str, str] | None:
    """(pytrec_eval measure request, result key) computing the same value, or None.

    >>> trec_eval_name(parse_measure("nDCG@10"))
    ('ndcg_cut.10', 'ndcg_cut_10')
    """
    info = m.info
    if m.gain != "linear":
        return None  # trec_eval's gain = label; tests map exp gains onto the qrels
    if m.beta != 1.0:
        return f"{info.trec}.{m.beta!r}", info.trec  # set_F.0.5, reported as set_F
    if m.cutoff is None:
        return (info.trec, info.trec) if info.trec else None
    if info.trec_cut is None:
        return None
    if info.float_cutoff:
        return f"{info.trec_cut}.{m.cutoff!r}", f"{info.trec_cut}_{m.cutoff:.2f}"
    return f"{info.trec_cut}.{m.cutoff}", f"{info.trec_cut}_{m.cutoff}"
