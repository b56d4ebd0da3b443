"""The `compare:` block's statistics read across its keys: the correction a test takes (none with
a many-system test, whose p-values are family-wise already: another is a mistake said at
`compare.correction`) and the power analysis asked for (`compare.power`)."""

from __future__ import annotations

from typing import Any

from harness.config.nodes import INVALID, Ctx
from harness.policies import MANY_SYSTEM_TESTS, PowerPolicy, default_correction

__all__ = ["compare_statistics"]


def compare_statistics(ctx: Ctx, c: dict) -> tuple[Any, Any]:
    """(correction, power) of the checked `compare:` values ``c``: the correction to use (INVALID
    after a problem) and the PowerPolicy asked for (None: none; INVALID: its keys' problems are
    reported)."""
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
