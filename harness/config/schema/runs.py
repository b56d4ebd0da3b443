"""What is searched and how it is scored: the `runs:`, `depth:`, `measures:`, `expect:`,
`expect_tolerance:`, `expect_okish_tolerance:` and `evaluation:` keys of the schema."""

from __future__ import annotations

from harness.config.keys import Key
from harness.config.limits import MAX_DEPTH
from harness.policies import (
    DEFAULT_DEPTH,
    DEFAULT_EXPECT_TOLERANCE,
    DEFAULT_MEASURES,
    MISSING_TOPICS,
    OKISH_FACTOR,
    TIES,
    EvalPolicy,
)

__all__ = ["RUNS", "DEPTH", "MEASURES", "EXPECT", "EXPECT_TOLERANCE", "EXPECT_OKISH_TOLERANCE", "EVALUATION"]

RUNS = Key(
    "runs",
    "runs",
    "The similarities to run: a list of `{model: {param: value}}`; a list of values is a sweep, "
    "several lists form a grid; `{}` or null means the defaults, and so does a model's bare name "
    "(`runs: [bm25, dirichlet]`). An entry may carry `name: NAME`, what tables, plots and run files "
    "call it (a sweep's settings add their values); without one, each run gets a short automatic "
    "name (docs/experiments.md: *Run names*). Names are unique, at most 64 characters, and name the "
    "run's file (`runs/NAME.trec`, spaces and other characters a shell needs quoted as `_`: "
    "docs/experiments.md, *Run names*): a name may not be empty, start with `.` (`.`, `..`, `.x`: a "
    "hidden file), start or end with a space, or contain `/`, `\\` or a control character (NUL "
    "included). An entry may also be a run the harness does not search: `file: PATH` (a TREC run; "
    "with `format: msmarco` beside it, MS MARCO's `qid<TAB>pid<TAB>rank`: docs/semantics.md, *MS "
    "MARCO files*) or `fuse: {method, runs: [NAME, ...], rrf_k, alpha, depth, k, norm, weights}` (a "
    "fusion of other entries; docs/experiments.md: *Runs from files and fusions*); neither is swept "
    "or tuned.",
    required=True,
)

DEPTH = Key(
    "depth",
    "int",
    "Documents retrieved per topic (above the number of documents: all of them).",
    default=DEFAULT_DEPTH,
    minimum=1,
    maximum=MAX_DEPTH,
)

MEASURES = Key(
    "measures",
    "measures",
    "Measures to compute (canonical names of harness.metrics).",
    default=DEFAULT_MEASURES,
)

EXPECT = Key(
    "expect",
    "expect",
    "Expected scores, `{run: {measure: value}}`: within `expect_tolerance` a value is OK, within "
    "`expect_okish_tolerance` OK-ish (a warning), beyond it fails the experiment (exit 1). A run is "
    "given by its name (`bm25`, `dirichlet mu=500`, `dirichlet tuned`, or its `name:`) or by its spec, "
    "canonicalised (`bm25(b=0.4,k1=0.9)` = `bm25(k1=0.9,b=0.4)`). In a study, each entry of "
    "`collections` has its own.",
)

EXPECT_TOLERANCE = Key(
    "expect_tolerance",
    "number",
    "Largest |actual - expected| that is OK (the default means agreement to 4 decimals).",
    default=DEFAULT_EXPECT_TOLERANCE,
    minimum=0,
)

EXPECT_OKISH_TOLERANCE = Key(
    "expect_okish_tolerance",
    "number",
    "Largest |actual - expected| that is OK-ish: reported `[OK-ish]` with a warning, not a failure "
    '(Anserini\'s regressions call a score within 150% of its tolerance "OKish"). At least '
    "`expect_tolerance`; equal to it, nothing is OK-ish.",
    minimum=0,
    default_text=f"{OKISH_FACTOR:g} x `expect_tolerance`",
)

EVALUATION = Key(
    "evaluation",
    "section",
    "Policies that change numbers; all are echoed in the report.",
    keys=(
        Key(
            "ties",
            "choice",
            "Order of equal scores: trec_eval re-sorts by score then doc id; as-ranked keeps the engine's order.",
            default=EvalPolicy.ties,
            choices=tuple(TIES),
        ),
        Key(
            "missing_topics",
            "choice",
            "Judged topics a run has no results for: zero counts "
            "them as 0 (trec_eval -c); drop leaves them out of the mean.",
            default=EvalPolicy.missing_topics,
            choices=tuple(MISSING_TOPICS),
        ),
    ),
)
