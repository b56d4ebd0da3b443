"""The `compare:` block's statistics read across its keys: the correction a test takes (none with
a many-system test, whose p-values are family-wise already: another is a mistake said at
`compare.correction`), the power analysis asked for (`compare.power`), and `compare.meta`, which a
config of one collection refuses: a meta-analysis combines a comparison over a study's collections
(harness.config.study reads it there, before each collection's config is validated)."""

from __future__ import annotations

from typing import Any

from harness.config.nodes import INVALID, Ctx
from harness.policies import MANY_SYSTEM_TESTS, PowerPolicy, default_correction

__all__ = ["compare_statistics", "META_ALONE"]

# what a study's `compare.meta` is, said where a config of one collection gives it
META_ALONE = (
    "a meta-analysis combines each comparison over the collections of a study, and this config is one "
    "collection: remove `meta`, or make the config a study of several (`collections:`, docs/experiments.md: "
    "*Studies*)"
)


def compare_statistics(ctx: Ctx, c: dict) -> tuple[Any, Any]:
    """(correction, power) of the checked `compare:` values ``c``: the correction to use (INVALID
    after a problem) and the PowerPolicy asked for (None: none; INVALID: its keys' problems are
    reported)."""
    meta = c["meta"]  # `meta: false`: None; a problem of its keys, said already: one problem is enough
    if "compare.meta" in ctx.present and meta is not None and meta is not INVALID and INVALID not in meta.values():
        ctx.problem("compare.meta", META_ALONE, ctx.nodes["compare.meta"])
    correction = c["correction"]
    if c["test"] in MANY_SYSTEM_TESTS:
        if "compare.correction" in ctx.present and correction not in (INVALID, "none"):
            return ctx.problem(
                "compare.correction",
                f"test {c['test']} tests every pair of runs at once and its p-values are family-wise already, "
                f"so no correction applies (got {correction}); remove `correction` or write `correction: none`",
                ctx.nodes["compare.correction"],
            ), None
        correction = default_correction(c["test"])
    power = None
    if "compare.power" in ctx.present and c["power"] is not None:  # `power: false`: None
        power = c["power"] if c["power"] is INVALID or INVALID in c["power"].values() else PowerPolicy(**c["power"])
    return correction, power
