"""``harness.fuse``: runs from any source fused into one, as a DataFrame; the fuse verb's adapter,
named by its verb as verbs/fuse.py and cli/fuse.py are."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from harness import lazy
from harness.api.frames import as_policy, as_run, run_frame
from harness.errors import DataError
from harness.policies import DEFAULT_ALPHA, DEFAULT_DEPTH, DEFAULT_FUSION_K, DEFAULT_RRF_K, FUSE_RUNTAG, ReadPolicy
from harness.verbs.fuse import fuse as fuse_verb
from harness.verbs.fuse import fusion_policy

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["fuse"]


def fuse(
    runs: Sequence,
    method: str = "rrf",
    *,
    rrf_k: int = DEFAULT_RRF_K,
    alpha: float = DEFAULT_ALPHA,
    depth: int | None = DEFAULT_DEPTH,
    k: int | None = DEFAULT_FUSION_K,
    norm: str = "none",
    weights: Sequence[float] | None = None,
    output: str | os.PathLike | None = None,
    runtag: str = FUSE_RUNTAG,
    duplicates: str = ReadPolicy.duplicates,
    run_format: str = ReadPolicy.run_format,
) -> DataFrame:
    """Fuse two or more runs, as ``harness fuse`` does; returns the fused run as PyTerrier's
    columns (``qid``, ``docno``, ``rank``, ``score``), and writes it to ``output`` when given.

    ``runs``: TREC run files (their rank column is what ``rrf`` reads; a run's ir_metadata file
    given with it, ``runs/bm25.ir-metadata.yml`` beside ``runs/bm25.trec``, is left out), DataFrames or
    ``{qid: {docno: score}}`` dicts (ranked by their ``rank`` column or row order; ``rrf`` uses
    those positions). ``method``: rrf | interpolation | average | normalize (pyserini.fusion's)
    | combsum | combmnz; ``norm`` (none | minmax | zscore | rank) and ``weights`` are for
    combsum and combmnz. ``depth``/``k``: None keeps every row. ``run_format`` (trec | msmarco):
    the layout of the run files read and of ``output``, as ``harness fuse --run-format``."""
    policy = fusion_policy(
        method=method,
        rrf_k=rrf_k,
        alpha=alpha,
        depth=depth,
        k=k,
        norm=norm,
        weights=None if weights is None else tuple(weights),
    )
    # a string or a dict is iterable too: "run.trec" would be fused as the files r, u, n, ...
    if isinstance(runs, (str, bytes, os.PathLike, Mapping, pd.DataFrame)) or not isinstance(runs, Iterable):
        raise DataError(
            "runs", f"expected a list of two or more runs (files, DataFrames or dicts), got {type(runs).__name__}"
        )
    if output is not None and not isinstance(output, (str, os.PathLike)):
        raise DataError("output", f"expected a file path or None (got {type(output).__name__})")
    read = as_policy(ReadPolicy, "policy", duplicates, run_format)
    given = [
        r if isinstance(r, (str, os.PathLike)) else as_run(r, f"runs[{i}]", duplicates) for i, r in enumerate(runs)
    ]
    fused = fuse_verb(given, policy, output, runtag, read)
    df = run_frame(fused)
    df.attrs = {"method": method, "policy": repr(policy)}
    return df
