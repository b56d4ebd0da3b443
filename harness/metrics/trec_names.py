"""trec_eval's names: a dialect of the one measure table (harness.metrics.families), parsed from
its ``-m`` arguments and formatted into its output lines and pytrec_eval's requests.

Each family of the table names itself in trec_eval's dialect (``trec``: without a cut-off,
``map``; ``trec_cut``: with cut-offs, ``map_cut``), so every name trec_eval's ``-m`` takes is a
:class:`TrecName`: a family, with or without cut-offs (``runid``, an output line, is the one
name without a family). trec_eval prints its measures in one fixed order (its measure table,
:data:`TREC_NAMES`), whatever the order of the ``-m`` flags; a measure with parameters (``-m
P.5,7,3``) takes them in its own form:

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

Each measure reads its family's judgments (``rel_info``: trec_eval's ``-R``): qrels, preferences
(``prefs`` or ``qrels_prefs``) or judgment groups (``qrels_jg``); ``runid`` and ``num_q`` any.
``yaap`` (Robertson's) is in no group.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.metrics.c_numbers import atof, atol, c_int
from harness.metrics.families import FAMILIES, MeasureInfo
from harness.metrics.measures import Measure

__all__ = ["TrecName", "TREC_NAMES", "GROUPS", "Request", "parse_requests", "trec_eval_name"]


@dataclass(frozen=True)
class TrecName:
    """One name of trec_eval's measure table: its family (None for ``runid``), with cut-offs or
    without (``cut``)."""

    name: str
    family: MeasureInfo | None
    cut: bool = False

    @property
    def params(self) -> str:
        """The form of its parameters: "none", "cut_long", "cut_float", "floats" or "pairs"."""
        if self.family is None:
            return "none"
        if self.cut:
            return "cut_float" if self.family.float_cutoff else "cut_long"
        return self.family.trec_params

    @property
    def defaults(self) -> tuple:
        """Its parameters when ``-m`` gives none."""
        if self.family is None:
            return ()
        return self.family.trec_cuts if self.cut else self.family.trec_defaults

    @property
    def kind(self) -> str:
        """How its values print: "runid", "num_q", "long" (%ld), "relstring" or "float" (%6.4f)."""
        if self.family is None:
            return "runid"
        if self.family.summary == "count":
            return "num_q"
        return {"count": "long", "text": "relstring"}.get(self.family.value, "float")

    @property
    def per_query(self) -> bool:
        """Printed for each topic with -q."""
        return self.family is not None and self.family.per_query

    @property
    def rel_info(self) -> str:
        """The judgments it reads: "qrels", "prefs", "qrels_jg" or "any"."""
        return "any" if self.family is None else self.family.judgments


def _names() -> dict[str, TrecName]:
    names = {"runid": TrecName("runid", None)}
    for info in FAMILIES.values():
        if info.trec:
            names[info.trec] = TrecName(info.trec, info)
        if info.trec_cut:
            names[info.trec_cut] = TrecName(info.trec_cut, info, cut=True)
    return names


_PREFS = tuple(n for n, i in FAMILIES.items() if i.judgments == "prefs")
_JG = tuple(name for i in FAMILIES.values() if i.judgments == "qrels_jg" and (name := i.trec or i.trec_cut))
# trec_eval's measure table, in its order: its qrels measures (all_trec), then the preference and
# judgment-group ones, and yaap (in no group)
_ALL_TREC = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring "
    "recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P "
    "success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret"
).split()
_ORDER = [*_ALL_TREC, *_PREFS, *_JG, "yaap"]
TREC_NAMES: dict[str, TrecName] = {name: _names()[name] for name in _ORDER}
GROUPS: dict[str, tuple[str, ...]] = {
    "official": tuple(
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P".split()
    ),
    "all_trec": tuple(_ALL_TREC),
    "set": tuple(
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P set_map set_F".split()
    ),
    "all_prefs": ("runid", "num_q", *_PREFS),
    "prefs": ("runid", "num_q", *_PREFS[:6]),
    "qrels_jg": ("runid", "num_q", *_JG),
}


@dataclass(frozen=True)
class Request:
    """A measure of trec_eval's to compute, with its parameters (its defaults unless given) and,
    for a parameter list given on the command line, the text printed after its name."""

    trec: TrecName
    params: tuple
    printable: str | None = None

    def names(self) -> list[str]:
        """Its output lines' names: one per cut-off (``P_5``), else the measure's."""
        m = self.trec
        if m.params == "cut_long":
            return [f"{m.name}_{k}" for k in self.params]
        if m.params == "cut_float":  # trec_eval's name buffer holds 8 characters of the value
            return [f"{m.name}_{v:3.2f}"[: len(m.name) + 9] for v in self.params]
        return [m.name + (f"_{self.printable}" if self.printable is not None else "")]

    def measures(self, level: int) -> list[Measure]:
        """Its output lines as measure values at relevance level ``level`` (trec_eval's -l, for
        the families that read one): one per cut-off, else one with the parameters."""
        family = self.trec.family
        assert family is not None  # runid, the one name without a family, is computed apart
        rel = level if "rel" in family.options else 1
        if self.trec.cut:
            return [Measure(family.name, k, rel=rel) for k in self.params]
        return [Measure(family.name, rel=rel, params=self.params)]


def _params(m: TrecName, text: str) -> tuple[tuple, str | None]:
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
        float_cuts = sorted(atof(t) for t in items)
        if len(set(float_cuts)) != len(float_cuts):
            raise ValueError(f"{m.name}: duplicate cut-offs (got {text!r})")
        return tuple(float_cuts), None
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
                chosen.setdefault(member, Request(TREC_NAMES[member], TREC_NAMES[member].defaults))
            continue
        m = TREC_NAMES.get(name)
        if m is None:
            known = ", ".join([*GROUPS, *TREC_NAMES])
            raise ValueError(f"-m {item}: trec_eval has no measure {name!r} (measures and groups: {known})")
        if dot and name not in given:  # trec_eval reads the first -m giving NAME's parameters, no other
            params, printable = _params(m, text)
            chosen[name] = Request(m, params, printable)
            given.add(name)
        elif not dot:
            chosen.setdefault(name, Request(m, m.defaults))
    return [chosen[n] for n in TREC_NAMES if n in chosen]


def trec_eval_name(m: Measure) -> tuple[str, str] | None:
    """(pytrec_eval measure request, result key) computing the same value, or None.

    >>> from harness.metrics.measures import parse_measure
    >>> trec_eval_name(parse_measure("nDCG@10"))
    ('ndcg_cut.10', 'ndcg_cut_10')
    """
    info = m.info
    if m.gain != "linear":
        return None  # trec_eval's gain = label; tests map exp gains onto the qrels
    if m.beta != 1.0:
        assert info.trec is not None  # beta is set_F's option
        return f"{info.trec}.{m.beta!r}", info.trec  # set_F.0.5, reported as set_F
    if m.cutoff is None:
        return (info.trec, info.trec) if info.trec else None
    if info.trec_cut is None:
        return None
    if info.float_cutoff:
        return f"{info.trec_cut}.{m.cutoff!r}", f"{info.trec_cut}_{m.cutoff:.2f}"
    return f"{info.trec_cut}.{m.cutoff}", f"{info.trec_cut}_{m.cutoff}"
