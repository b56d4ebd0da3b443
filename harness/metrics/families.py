"""The one measure table: every family the harness computes, what it takes and what it means.

A family is what a measure value (:class:`harness.metrics.measures.Measure`) names: ``P`` of
``P@10``, ``nDCG`` of ``nDCG(gain=exp)@10``. Each entry says, once, what every door reads of it:
its cut-off and options (the canonical syntax), how trec_eval's "all" line summarises its
per-topic values, what a judged topic the run lacks scores, how a value prints, which judgments
it reads, and its names in trec_eval's dialect (``trec``, ``trec_cut``: parsed and formatted by
harness.metrics.trec_names). Who computes each family is harness.metrics.providers.

A family that is another evaluation's computation of a measure, not trec_eval's, is named after
it in parentheses: ``MRR(msmarco)``, MS MARCO's official MRR (msmarco_passage_eval.py), written
``MRR@10(msmarco)`` as MS MARCO writes ``MRR @10`` (:meth:`MeasureInfo.written`). It reads the
run's rank column as written (``ranks``), so the doors read run files with it when it is asked for.

:data:`FAMILIES` holds them all; :data:`MEASURES` the ones configs, the API and ``harness
evaluate`` take (``offered``). The rest are trec_eval's measures that `harness trec_eval`
computes and nothing else asks for: a summary other than the mean (``gm_map``), parameters the
canonical syntax has no place for (``utility``, ``Rprec_mult``), a text value (``relstring``),
or judgments nothing else reads (preferences, judgment groups). They carry trec_eval's names.
This module is data only (no numpy): validating a config reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MeasureInfo", "FAMILIES", "MEASURES", "TREC_CUTS", "ELEVEN_LEVELS"]

TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cut-offs
ELEVEN_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # its recall levels, as its literals
_RPREC_MULT = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class MeasureInfo:
    """One family of the table."""

    name: str
    cutoff: str  # "required", "optional" or "none"
    options: tuple[str, ...]  # subset of ("rel", "gain", "beta")
    doc: str
    trec: str | None = None  # trec_eval's name without a cut-off (e.g. "map")
    trec_cut: str | None = None  # trec_eval's name with cut-offs (e.g. "map_cut")
    float_cutoff: bool = False
    # trec_eval's "all" line: the mean over topics, the sum (counts), the geometric mean ("gm":
    # gm_map), the number of topics ("count": num_q) or none ("none": relstring)
    summary: str = "mean"
    on_missing: str = "zero"  # a judged topic the run lacks (missing_topics=zero): 0, or "keep" its value
    # ir_measures' spelling with an explicit rel= that names another family: its NumRet(rel=N)
    # counts the returned docs with label >= N, i.e. NumRelRet(rel=N) (pytrec_eval's num_rel_ret)
    with_rel: str | None = None
    value: str = "float"  # how a value prints: "float" (%6.4f), "count" (%ld) or "text" (relstring)
    judgments: str = "qrels"  # what it reads: "qrels", "prefs" (preferences), "qrels_jg" (judgment groups), "any"
    # the parameters `trec` takes in trec_eval's dialect: "none", "floats" (a list) or "pairs"
    # (gains by level, ``ndcg.1=3,2=9``), and its parameters when none are given
    trec_params: str = "none"
    trec_defaults: tuple = ()
    trec_cuts: tuple = ()  # `trec_cut`'s cut-offs when none are given
    offered: bool = True  # taken by configs, the API and `harness evaluate`; else `harness trec_eval` only
    # reads the run's rank column as written (MS MARCO's evaluation), not the order of its scores
    ranks: bool = False

    def written(self, cut: str = "") -> str:
        """The family's name with a cut-off text (``"@10"``, ``"@k"``; ``""`` for none) as its
        measures are written: ``P@10``; a family named after another evaluation puts the cut-off
        before that name, as MS MARCO writes ``MRR @10``: ``MRR@10(msmarco)``."""
        base, paren, evaluation = self.name.partition("(")
        return f"{base}{cut}{paren}{evaluation}"

    @property
    def per_query(self) -> bool:
        """Whether the family has a value per topic (trec_eval -q prints it)."""
        return self.summary not in ("gm", "count")


def _trec_only(name: str, doc: str, **kw) -> MeasureInfo:
    """A trec_eval measure nothing but `harness trec_eval` computes, under its own name."""
    cutoff = "required" if "trec_cut" in kw else "none"
    return MeasureInfo(name, cutoff, kw.pop("options", ("rel",)), doc, **({"trec": name} | kw), offered=False)


_PREFS_DOCS = {
    "prefs_num_prefs_poss": "Number of preferences (judged pairs A > B) of the topic's judgment groups.",
    "prefs_num_prefs_ful": "Number of preferences the run fulfils (A ranked above B; a retrieved document "
    "is above every unretrieved one).",
    "prefs_num_prefs_ful_ret": "Number of preferences fulfilled with both documents retrieved.",
    "prefs_simp": "Preferences fulfilled / preferences, over all of the topic's pairs.",
    "prefs_pair": "Preferences fulfilled / preferences, averaged over the pairs of preference classes "
    "(trec_eval's count matrix).",
    "prefs_avgjg": "prefs_simp of each judgment group, averaged over the groups.",
    "prefs_avgjg_Rnonrel": "prefs_avgjg over each group's relevant documents and as many of its "
    "highest non-relevant ones.",
    "prefs_simp_ret": "prefs_simp over the pairs whose documents are both retrieved.",
    "prefs_pair_ret": "prefs_pair over the pairs whose documents are both retrieved.",
    "prefs_avgjg_ret": "prefs_avgjg over the pairs whose documents are both retrieved.",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over the pairs whose documents are both retrieved.",
    "prefs_simp_imp": "prefs_simp over the pairs with at least one document retrieved.",
    "prefs_pair_imp": "prefs_pair over the pairs with at least one document retrieved.",
    "prefs_avgjg_imp": "prefs_avgjg over the pairs with at least one document retrieved.",
}

FAMILIES: dict[str, MeasureInfo] = {
    m.name: m
    for m in [
        MeasureInfo(
            "P",
            "required",
            ("rel",),
            "Precision at k: relevant in the top k / k (k even when fewer are returned, as trec_eval P_k).",
            trec_cut="P",
            trec_cuts=TREC_CUTS,
        ),
        MeasureInfo(
            "R",
            "required",
            ("rel",),
            "Recall at k: relevant in the top k / relevant judged (0 when none; trec_eval recall_k).",
            trec_cut="recall",
            trec_cuts=TREC_CUTS,
        ),
        MeasureInfo(
            "F1",
            "required",
            ("rel",),
            "Harmonic mean of P@k and R@k (0 when both are 0). trec_eval has no cut-off F; "
            "equals its set_F on the run truncated at k when k docs are returned.",
        ),
        MeasureInfo(
            "AP",
            "optional",
            ("rel",),
            "Average precision (trec_eval map); AP@k sums only the top k but still divides "
            "by all relevant (trec_eval map_cut_k).",
            trec="map",
            trec_cut="map_cut",
            trec_cuts=TREC_CUTS,
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
            trec_params="pairs",
            trec_cuts=TREC_CUTS,
        ),
        MeasureInfo(
            "RR",
            "optional",
            ("rel",),
            "Reciprocal rank of the first relevant doc, 0 if none (in the top k for RR@k); trec_eval recip_rank.",
            trec="recip_rank",
        ),
        MeasureInfo(
            "Rprec",
            "none",
            ("rel",),
            "Precision at rank R, R = relevant judged (trec_eval Rprec).",
            trec="Rprec",
        ),
        MeasureInfo(
            "bpref",
            "none",
            ("rel",),
            "Binary preference, trec_eval 9 definition: each retrieved relevant doc scores "
            "1 - min(n, R)/min(N, R), n = judged non-relevant above it, N = judged "
            "non-relevant; summed / R.",
            trec="bpref",
        ),
        MeasureInfo(
            "Success",
            "required",
            ("rel",),
            "1 if a relevant doc is in the top k, else 0 (trec_eval success_k).",
            trec_cut="success",
            trec_cuts=(1, 5, 10),
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
            trec_cuts=ELEVEN_LEVELS,
        ),
        MeasureInfo(
            "11pt",
            "none",
            ("rel",),
            "Mean of IPrec at recall 0.0, 0.1, ..., 1.0 (trec_eval 11pt_avg).",
            trec="11pt_avg",
            trec_params="floats",
            trec_defaults=ELEVEN_LEVELS,
        ),
        MeasureInfo(
            "NumRet",
            "none",
            (),
            "Number of docs returned (trec_eval num_ret). ir_measures' NumRet(rel=N) is NumRelRet(rel=N).",
            trec="num_ret",
            summary="sum",
            with_rel="NumRelRet",
            value="count",
        ),
        MeasureInfo(
            "NumRel",
            "none",
            ("rel",),
            "Number of relevant judged docs (trec_eval num_rel).",
            trec="num_rel",
            summary="sum",
            on_missing="keep",
            value="count",
        ),
        MeasureInfo(
            "NumRelRet",
            "none",
            ("rel",),
            "Number of relevant docs returned (trec_eval num_rel_ret).",
            trec="num_rel_ret",
            summary="sum",
            value="count",
        ),
        MeasureInfo(
            "infAP",
            "none",
            ("rel",),
            "Inferred AP (Yilmaz & Aslam), trec_eval 9.0.8's infAP: judged documents with a "
            "negative label count as in the pool but unjudged; = AP when every returned document is judged.",
            trec="infAP",
        ),
        MeasureInfo(
            "SetP",
            "none",
            ("rel",),
            "Precision of the whole returned list: relevant returned / returned (trec_eval set_P).",
            trec="set_P",
        ),
        MeasureInfo(
            "SetR",
            "none",
            ("rel",),
            "Recall of the whole returned list: relevant returned / relevant judged (trec_eval set_recall).",
            trec="set_recall",
        ),
        MeasureInfo(
            "SetF",
            "none",
            ("rel", "beta"),
            "trec_eval's set_F: (beta + 1) SetP SetR / (beta SetP + SetR), 0 when nothing relevant "
            "is returned; beta defaults to 1 (the harmonic mean); SetF(beta=0.5) is trec_eval's "
            "set_F.0.5 and ir_measures' SetF(beta=0.5) (beta, not its square, as trec_eval).",
            trec="set_F",
            trec_params="floats",
            trec_defaults=(1.0,),
        ),
        MeasureInfo(
            "SetAP",
            "none",
            ("rel",),
            "SetP x SetR, trec_eval's set_map (not AP: no ranks are used).",
            trec="set_map",
        ),
        MeasureInfo(
            "binG",
            "none",
            ("rel",),
            "trec_eval's binG: binary gain with a discount by the non-relevant documents above "
            "(sum over relevant returned of 1/log2(2 + non-relevant above)) / relevant judged.",
            trec="binG",
        ),
        MeasureInfo(
            "G",
            "none",
            (),
            "trec_eval's G (gain = label, discounted by the cost of reaching each document; "
            "`harness trec_eval -m G.1=g1,2=g2` takes other gains).",
            trec="G",
            trec_params="pairs",
        ),
        MeasureInfo(
            "ndcg_rel",
            "none",
            (),
            "trec_eval's ndcg_rel: nDCG (gain = label) averaged over the ranks of the relevant "
            "documents (those not returned at the final value).",
            trec="ndcg_rel",
            trec_params="pairs",
        ),
        MeasureInfo(
            "Rndcg",
            "none",
            ("rel",),
            "trec_eval's Rndcg: nDCG (gain = label) averaged over the ranks where the ideal "
            "ranking's gain changes; 0 when nothing is relevant at rel.",
            trec="Rndcg",
            trec_params="pairs",
        ),
        MeasureInfo(
            "Judged",
            "optional",
            (),
            "Judgment rate: docs of the top k with a qrels entry / min(k, returned), as "
            "ir_measures' Judged@k (0 for an empty list; Judged: the whole list). Not in trec_eval.",
        ),
        MeasureInfo(
            "DCG",
            "optional",
            ("rel", "gain"),
            "Discounted cumulative gain, sum of gain/log2(rank+1) over the top k (not normalised; same gains as nDCG).",
        ),
        MeasureInfo(
            "CG",
            "optional",
            ("rel", "gain"),
            "Cumulative gain: sum of gains over the top k (same gains as nDCG).",
        ),
        MeasureInfo(
            "MRR(msmarco)",
            "required",
            (),
            "MS MARCO's official MRR@k (msmarco_passage_eval.py's MRR @10): every qrels line counts as "
            "relevant, whatever its label; a run's passage at rank r is the one its line gives with rank r "
            "(the rank column as written; of two lines with one rank, the later); the reciprocal of the first "
            "rank <= k holding one, summed over the run's topics in their order and divided by the qrels' "
            "topics, whatever missing_topics says. Not trec_eval's RR@k (docs/semantics.md, MS MARCO files).",
            ranks=True,
        ),
        # trec_eval's measures that `harness trec_eval` alone computes
        _trec_only(
            "num_q",
            "Number of topics evaluated (with -c: judged).",
            options=(),
            summary="count",
            value="count",
            judgments="any",
        ),
        _trec_only("gm_map", "Geometric mean of AP over the topics, each floored at 0.00001.", summary="gm"),
        _trec_only("gm_bpref", "Geometric mean of bpref over the topics, each floored at 0.00001.", summary="gm"),
        _trec_only(
            "Rprec_mult",
            "Precision at rank x R for each multiple x (trec_eval's cut-off (long)(x R + 0.9)).",
            trec=None,
            trec_cut="Rprec_mult",
            float_cutoff=True,
            trec_cuts=_RPREC_MULT,
        ),
        _trec_only(
            "utility",
            "a rel_ret + b nonrel_ret + c rel_not_ret + d nonrel_not_ret, the coefficients a,b,c,d "
            "its parameters (default 1,-1,0,0), the collection's size -N.",
            trec_params="floats",
            trec_defaults=(1.0, -1.0, 0.0, 0.0),
        ),
        _trec_only(
            "relstring",
            "The labels of the first n documents (default 10) as a string: 0-9, > above 9, - not "
            "judged, . judged negative, < below -2.",
            options=(),
            summary="none",
            value="text",
            trec_params="floats",
            trec_defaults=(10.0,),
        ),
        _trec_only(
            "relative_P",
            "Relevant in the top k / min(k, R).",
            trec=None,
            trec_cut="relative_P",
            trec_cuts=TREC_CUTS,
        ),
        _trec_only("set_relative_P", "Relevant retrieved / min(retrieved, R)."),
        _trec_only(
            "num_nonrel_judged_ret",
            "Number of judged non-relevant documents retrieved.",
            summary="sum",
            value="count",
        ),
        _trec_only("yaap", "Robertson's yet another AP: log((1 + s) / (1 + R - s)), s the sum of AP's precisions."),
        *(
            _trec_only(
                name,
                doc,
                options=(),
                judgments="prefs",
                **({"summary": "sum", "value": "count"} if "_num_" in name else {}),
            )
            for name, doc in _PREFS_DOCS.items()
        ),
        _trec_only("map_avgjg", "map of each judgment group, averaged over the topic's groups.", judgments="qrels_jg"),
        _trec_only(
            "P_avgjg",
            "P_k of each judgment group, averaged over the topic's groups.",
            trec=None,
            trec_cut="P_avgjg",
            trec_cuts=TREC_CUTS,
            judgments="qrels_jg",
        ),
        _trec_only(
            "Rprec_mult_avgjg",
            "Rprec_mult of each judgment group, averaged over the topic's groups.",
            trec=None,
            trec_cut="Rprec_mult_avgjg",
            float_cutoff=True,
            trec_cuts=_RPREC_MULT,
            judgments="qrels_jg",
        ),
    ]
}

MEASURES: dict[str, MeasureInfo] = {name: info for name, info in FAMILIES.items() if info.offered}
