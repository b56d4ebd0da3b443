"""trec_eval 9.0.8's measures under their own names, parameters and summary rules, for
`harness trec_eval` (a drop-in for its command line; the verb is harness.verbs.trec_eval).

trec_eval prints its measures in one fixed order (its measure table), whatever the order of
the ``-m`` flags; a measure with parameters (``-m P.5,7,3``) takes them in its own form:

- cut-offs (``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``success``, ``relative_P``): read as
  C's ``atol`` reads them (``23.4`` is 23, ``99999999999999999999`` LONG_MAX), sorted,
  positive, no duplicates, none 2**31 or more apart (trec_eval sorts those out of order);
  one line each, ``P_3``;
- recall levels and multiples of R (``iprec_at_recall``, ``Rprec_mult``): C's ``atof``, sorted,
  no duplicates; lines ``iprec_at_recall_0.25`` (``%3.2f``, cut to 8 characters as trec_eval
  cuts it: ``Rprec_mult.1e30`` prints ``Rprec_mult_10000000``);
- a parameter list (``utility``, ``set_F``, ``11pt_avg``, ``relstring``) or gains by relevance
  level (``ndcg.1=3,2=9``, also ``G``, ``ndcg_rel``, ``Rndcg``): kept in its order; the line's
  name is the measure's, followed by ``_`` and the parameters as written when any were given.

A measure's per-topic values are the registry's kernels (harness.metrics.kernels) where the
registry has the measure, computed here from the same ranked labels otherwise. The "all" line
is the mean over the evaluated topics (over every judged topic with ``-c``), summed in
trec_eval's order (topic ids sorted as strings); counts are summed; ``gm_map`` is the geometric
mean of AP (bpref for ``gm_bpref``) floored at 0.00001; ``num_q`` counts topics;
``relstring`` has per-topic lines only.

Each measure reads one kind of judgments (``rel_info``: trec_eval's ``-R``): qrels, preferences
(``prefs`` or ``qrels_prefs``; harness.metrics.trec_prefs) or judgment groups (``qrels_jg``;
harness.metrics.trec_jg); ``runid`` and ``num_q`` any. trec_eval stops ("Can't calculate
measure") on a measure over judgments of another kind; the verb refuses it by name first.
``yaap`` (Robertson's) is in no group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness.metrics import kernels, trec_segments
from harness.metrics.c_numbers import atof, atol, c_add, c_int, sum_in_order
from harness.metrics.measures import Measure
from harness.metrics.ranked import RankedLabels
from harness.metrics.trec_jg import JG_MEASURES
from harness.metrics.trec_output import Line
from harness.metrics.trec_prefs import PREFS_MEASURES
from harness.metrics.trec_zscores import zscore

__all__ = ["TrecMeasure", "TREC_MEASURES", "GROUPS", "Request", "parse_requests", "compute", "MIN_GEO_MEAN"]

MIN_GEO_MEAN = 0.00001  # trec_eval's floor of a topic's value in a geometric mean


@dataclass(frozen=True)
class TrecMeasure:
    """One measure of trec_eval's table."""

    name: str
    params: str  # "none", "cut_long", "cut_float", "floats" or "pairs" (level=gain)
    defaults: tuple = ()
    kind: str = "float"  # how a value prints: "float" (%6.4f), "long" (%ld), "runid", "num_q"
    per_query: bool = True  # printed for each topic with -q
    summary: str = "mean"  # the "all" line: "mean", "sum", "gm", "count" or "num_rel"
    rel_info: str = "qrels"  # the judgments it reads: "qrels", "prefs", "qrels_jg" or "any"


@dataclass(frozen=True)
class Request:
    """A measure to compute, with its parameters (its defaults unless given) and, for a
    parameter list given on the command line, the text printed after its name."""

    measure: TrecMeasure
    params: tuple
    printable: str | None = None

    def names(self) -> list[str]:
        m = self.measure
        if m.params == "cut_long":
            return [f"{m.name}_{k}" for k in self.params]
        if m.params == "cut_float":  # trec_eval's name buffer holds 8 characters of the value
            return [f"{m.name}_{v:3.2f}"[: len(m.name) + 9] for v in self.params]
        return [m.name + (f"_{self.printable}" if self.printable is not None else "")]


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_RPREC_MULT = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

# trec_eval 9.0.8's measure table, in its order (measures.c), for the measures computed here
TREC_MEASURES: dict[str, TrecMeasure] = {
    m.name: m
    for m in (
        TrecMeasure("runid", "none", kind="runid", per_query=False, summary="runid", rel_info="any"),
        TrecMeasure("num_q", "none", kind="num_q", per_query=False, summary="count", rel_info="any"),
        TrecMeasure("num_ret", "none", kind="long", summary="sum"),
        TrecMeasure("num_rel", "none", kind="long", summary="num_rel"),
        TrecMeasure("num_rel_ret", "none", kind="long", summary="sum"),
        TrecMeasure("map", "none"),
        TrecMeasure("gm_map", "none", per_query=False, summary="gm"),
        TrecMeasure("Rprec", "none"),
        TrecMeasure("bpref", "none"),
        TrecMeasure("recip_rank", "none"),
        TrecMeasure("iprec_at_recall", "cut_float", _ELEVEN),
        TrecMeasure("P", "cut_long", _CUTS),
        TrecMeasure("relstring", "floats", (10.0,), kind="relstring", summary="none"),
        TrecMeasure("recall", "cut_long", _CUTS),
        TrecMeasure("infAP", "none"),
        TrecMeasure("gm_bpref", "none", per_query=False, summary="gm"),
        TrecMeasure("Rprec_mult", "cut_float", _RPREC_MULT),
        TrecMeasure("utility", "floats", (1.0, -1.0, 0.0, 0.0)),
        TrecMeasure("11pt_avg", "floats", _ELEVEN),
        TrecMeasure("binG", "none"),
        TrecMeasure("G", "pairs"),
        TrecMeasure("ndcg", "pairs"),
        TrecMeasure("ndcg_rel", "pairs"),
        TrecMeasure("Rndcg", "pairs"),
        TrecMeasure("ndcg_cut", "cut_long", _CUTS),
        TrecMeasure("map_cut", "cut_long", _CUTS),
        TrecMeasure("relative_P", "cut_long", _CUTS),
        TrecMeasure("success", "cut_long", (1, 5, 10)),
        TrecMeasure("set_P", "none"),
        TrecMeasure("set_relative_P", "none"),
        TrecMeasure("set_recall", "none"),
        TrecMeasure("set_map", "none"),
        TrecMeasure("set_F", "floats", (1.0,)),
        TrecMeasure("num_nonrel_judged_ret", "none", kind="long", summary="sum"),
        *(
            TrecMeasure(name, "none", kind="long", summary="sum", rel_info="prefs")
            if name.startswith("prefs_num_")
            else TrecMeasure(name, "none", rel_info="prefs")
            for name in PREFS_MEASURES
        ),
        TrecMeasure("map_avgjg", "none", rel_info="qrels_jg"),
        TrecMeasure("P_avgjg", "cut_long", _CUTS, rel_info="qrels_jg"),
        TrecMeasure("Rprec_mult_avgjg", "cut_float", _RPREC_MULT, rel_info="qrels_jg"),
        TrecMeasure("yaap", "none"),
    )
}
# trec_eval's table order of every measure it has (the ones above keep their places in it): its
# qrels measures (all_trec), then the preference and judgment-group ones
_ALL_TREC = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring "
    "recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P "
    "success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret"
).split()
_TABLE_ORDER = [*_ALL_TREC, *PREFS_MEASURES, *JG_MEASURES, "yaap"]  # yaap: in no group
GROUPS: dict[str, tuple[str, ...]] = {
    "official": tuple(
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P".split()
    ),
    "all_trec": tuple(_ALL_TREC),
    "set": tuple(
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P set_map set_F".split()
    ),
    "all_prefs": ("runid", "num_q", *PREFS_MEASURES),
    "prefs": ("runid", "num_q", *PREFS_MEASURES[:6]),
    "qrels_jg": ("runid", "num_q", *JG_MEASURES),
}


def _params(m: TrecMeasure, text: str) -> tuple[tuple, str | None]:
    items = text.split(",")
    if m.params == "none":
        raise ValueError(f"measure {m.name!r} takes no parameters (got {text!r})")
    if m.params == "cut_long":
        cuts = sorted(atol(t) for t in items)
        if any(c <= 0 for c in cuts):
            raise ValueError(f"{m.name}: cut-offs must be positive (got {text!r})")
        if len(set(cuts)) != len(cuts):
            raise ValueError(f"{m.name}: duplicate cut-offs (got {text!r})")
        if any(c_int(b - a) <= 0 for i, a in enumerate(cuts) for b in cuts[i + 1 :]):
            # trec_eval compares cut-offs by their difference cast to an int: 2**31 or more
            # apart, it may sort them out of order and then prints wrong values (-m P.1,3000000000:
            # P_1 2.0000); cut-offs nearer each other, or alone, are read as it reads them
            raise ValueError(
                f"{m.name}: cut-offs 2**31 or more apart are sorted out of order by trec_eval, which then "
                f"prints wrong values (got {text!r}); give them in separate runs"
            )
        return tuple(cuts), None
    if m.params == "cut_float":
        cuts = sorted(atof(t) for t in items)
        if len(set(cuts)) != len(cuts):
            raise ValueError(f"{m.name}: duplicate cut-offs (got {text!r})")
        return tuple(cuts), None
    if m.params == "pairs":
        pairs = []
        for t in items:
            level, eq, gain = t.partition("=")
            if not eq or not level or not gain:
                raise ValueError(f"{m.name}: gains are level=gain pairs, e.g. {m.name}.1=3,2=9 (got {text!r})")
            pairs.append((atol(level), atof(gain)))
        return tuple(pairs), text
    values = tuple(atof(t) for t in items)
    if m.name == "utility" and len(values) != 4:
        raise ValueError(f"utility takes 4 coefficients, a,b,c,d (got {text!r})")
    return values, text


def parse_requests(items: list[str]) -> list[Request]:
    """The measures of trec_eval ``-m`` arguments (``official`` without any), in trec_eval's
    table order. A measure named with parameters more than once takes the first parameters
    (``-m P.5 -m P.10``: P_5), the others unread, as trec_eval does, whatever the order of
    the ``-m`` naming it (or a group holding it) without parameters. A group ignores any
    parameters (``-m official.5`` is ``-m official``), as trec_eval does. ValueError, naming
    the argument, for a measure it does not have or malformed parameters."""
    chosen: dict[str, Request] = {}
    given: set[str] = set()  # measures whose parameters came with an -m: the first such -m's count
    for item in items or ["official"]:
        name, dot, text = item.partition(".")
        if dot and text == "":
            raise ValueError(f"-m {item}: empty parameters after the '.'")
        if name in GROUPS:  # parameters after a group's name are unread, as trec_eval reads them
            for member in GROUPS[name]:
                chosen.setdefault(member, Request(TREC_MEASURES[member], TREC_MEASURES[member].defaults))
            continue
        m = TREC_MEASURES.get(name)
        if m is None:
            known = ", ".join([*GROUPS, *TREC_MEASURES])
            raise ValueError(f"-m {item}: trec_eval has no measure {name!r} (measures and groups: {known})")
        if dot and name not in given:  # trec_eval reads the first -m giving NAME's parameters, no other
            params, printable = _params(m, text)
            chosen[name] = Request(m, params, printable)
            given.add(name)
        elif not dot:
            chosen.setdefault(name, Request(m, m.defaults))
    return [chosen[n] for n in _TABLE_ORDER if n in chosen]


# ------------------------------------------------------------------------------ computation
def _kernel(rl: RankedLabels, name: str, cutoff=None, level: int = 1) -> np.ndarray:
    # nDCG takes its gains from every label >= 1, whatever -l, as trec_eval's ndcg does
    m = Measure(name, cutoff) if name == "nDCG" else Measure(name, cutoff, rel=level)
    return m.info.compute(rl, m, False)


def _per_topic_values(rl: RankedLabels, req: Request, level: int, num_docs: int) -> list[np.ndarray]:
    """The request's values for each topic of ``rl`` (one array per output line)."""
    name, p = req.measure.name, req.params
    ret = rl.num_ret().astype(np.int64)
    R = rl.num_rel(level).astype(np.int64)
    rel_ret = rl.relevant(level)[3].astype(np.int64)
    f = np.float64
    if name == "num_ret":
        return [ret.astype(f)]
    if name == "num_rel":
        return [R.astype(f)]
    if name == "num_rel_ret":
        return [rel_ret.astype(f)]
    if name in ("map", "gm_map"):
        return [_kernel(rl, "AP", None, level)]
    if name == "Rprec":
        return [_kernel(rl, "Rprec", None, level)]
    if name == "bpref":
        return [_kernel(rl, "bpref", None, level)]
    if name == "recip_rank":
        return [_kernel(rl, "RR", None, level)]
    if name == "iprec_at_recall":
        return kernels.interpolated_precision(rl, level, list(p), nan=True)
    if name in ("P", "recall", "success"):
        family = {"P": "P", "recall": "R", "success": "Success"}[name]
        return [_kernel(rl, family, k, level) for k in p]
    if name == "ndcg" and not p:
        return [_kernel(rl, "nDCG")]  # the registry's nDCG is trec_eval's with the default gains
    if name == "gm_bpref":
        return [_kernel(rl, "bpref", None, level)]
    if name in ("ndcg", "G", "ndcg_rel", "Rndcg", "infAP", "binG", "relstring", "yaap"):
        return [trec_segments.segment_values(rl, name, level, p)]
    if name == "ndcg_cut":
        return [_kernel(rl, "nDCG", k) for k in p]
    if name == "map_cut":
        return [_kernel(rl, "AP", k, level) for k in p]
    if name == "11pt_avg":  # the levels' values added from the last level to the first
        return [kernels.sum_levels(kernels.interpolated_precision(rl, level, list(p), nan=True)) / len(p)]
    if name == "Rprec_mult":
        return kernels.rprec_mult(rl, level, p)
    if name == "relative_P":
        out = []
        for k in p:
            hits = kernels.hits_at(rl, Measure("P", k, rel=level))  # relevant in the top k
            out.append(np.where(R > 0, hits / np.minimum(k, np.maximum(R, 1)), 0.0))
        return out
    if name in ("set_P", "set_recall", "set_map"):
        return [_kernel(rl, {"set_P": "SetP", "set_recall": "SetR", "set_map": "SetAP"}[name], None, level)]
    if name == "set_relative_P":
        ok = (ret > 0) & (R > 0)
        return [np.where(ok, rel_ret / np.maximum(np.minimum(ret, R), 1), 0.0)]
    if name == "set_F":
        return [kernels.set_f(rl, Measure("SetF", rel=level), beta=p[0])]
    if name == "utility":
        a, b, c, d = p
        rest = np.int64(num_docs) + rel_ret - ret - R  # C long arithmetic: int64 arrays wrap as it does
        with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is NaN, as in C
            return [
                a * rel_ret.astype(f) + b * (ret - rel_ret).astype(f) + c * (R - rel_ret).astype(f) + d * rest.astype(f)
            ]
    if name == "num_nonrel_judged_ret":
        topic, _, _ = rl.rows(0, level)
        return [np.bincount(topic, minlength=len(rl.topics)).astype(f)]
    raise AssertionError(name)  # every name of TREC_MEASURES but runid and num_q is above


def compute(
    rl: RankedLabels,
    requests: list[Request],
    *,
    level: int = 1,
    num_docs: int = 0,
    complete: bool = False,
    judged_topics: int = 0,
    num_rel_complete: int = 0,
    runid: str = "",
    zscores: dict | None = None,
    topics: list[str] | None = None,
    values=None,
) -> tuple[list[str], list[Line]]:
    """(evaluated topics in trec_eval's order, lines). ``rl`` holds the evaluated topics only
    (no missing-topic segments); ``complete`` is ``-c``: means over ``judged_topics`` topics,
    and num_rel's "all" is ``num_rel_complete`` (every judgment above 0, as trec_eval counts
    it under -c, whatever -l). ``zscores`` (-Z, :func:`parse_zscores`): each topic's values
    become z-scores before they are summed (:func:`zscore`), counts included. For judgments
    other than qrels, ``rl`` is None and ``values(request)`` gives the request's per-topic
    arrays (one per output line) over ``topics``."""
    if values is None:
        topics = rl.topics

        def values(req):
            return _per_topic_values(rl, req, level, num_docs)

    ids = list(topics)
    order = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8"))
    order_arr = np.array(order, dtype=np.int64)
    topics = [ids[i] for i in order]
    n = len(order)
    denominator = judged_topics if complete else n
    lines = []
    for req in requests:
        m = req.measure
        if m.kind == "runid":
            lines.append(Line("runid", "runid", None, runid))
            continue
        if m.kind == "num_q":
            lines.append(Line("num_q", "num_q", None, denominator))
            continue
        for name, vals in zip(req.names(), values(req)):
            if m.kind == "relstring":
                lines.append(Line(name, "relstring", [vals[i] for i in order], None))
                continue
            arr = np.asarray(vals, dtype=np.float64)[order_arr]
            if zscores is not None:
                seq = [zscore(zscores, qid, name, v) for qid, v in zip(topics, arr.tolist())]
                if m.summary in ("sum", "num_rel"):  # counts summed as doubles, printed as such
                    total = 0.0
                    for v in seq:
                        total = c_add(total, v)
                    summary = num_rel_complete if complete and m.summary == "num_rel" else total
                    lines.append(Line(name, m.kind, seq if m.per_query else None, summary))
                    continue
                arr = np.array(seq, dtype=np.float64)
            if m.summary == "sum":
                summary: float | int = int(arr.astype(np.int64).sum())
            elif m.summary == "num_rel":
                summary = num_rel_complete if complete else int(arr.astype(np.int64).sum())
            elif m.summary == "gm":
                total = 0.0
                for v in arr.tolist():
                    total += math.log(v if v > MIN_GEO_MEAN else MIN_GEO_MEAN)  # C's MAX: NaN -> the floor
                if complete:
                    total += (denominator - n) * math.log(MIN_GEO_MEAN)
                summary = math.exp(total / denominator) if denominator else 0.0
            else:
                total = sum_in_order(arr)
                summary = total / denominator if denominator else total
            lines.append(Line(name, m.kind, arr if m.per_query else None, summary))
    return topics, lines
