"""The `execution:` block checked across its keys: a Dask scheduler's address, the Dask keys
(which need engine dask), and a cluster that is a running scheduler or a LocalCluster the harness
starts, not both; its values are harness.config.execution's."""

from __future__ import annotations

from typing import Any

from yaml.nodes import Node

from harness.config.execution import Execution, scheduler_problem
from harness.config.keys import Key
from harness.config.nodes import INVALID, Ctx, read_string

__all__ = ["check_scheduler", "finish_execution"]


def check_scheduler(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = read_string(ctx, node, path)
    if v is not INVALID and (why := scheduler_problem(v)):
        return ctx.problem(path, why, node)
    return v


def finish_execution(ctx: Ctx, e: dict) -> Execution | None:
    """The execution block: the Dask keys need engine dask; a scheduler or a LocalCluster, not both."""
    if e is INVALID or any(x is INVALID for x in e.values()):  # `execution: 7`: reported
        return None
    if e["engine"] == "local":
        for k in ("scheduler", "workers", "index_shards", "topics_per_task", "timeout"):
            if f"execution.{k}" in ctx.present:
                ctx.problem(
                    f"execution.{k}",
                    f"applies to engine dask only; set `execution.engine: dask` or remove `{k}`",
                    ctx.nodes[f"execution.{k}"],
                )
        return Execution()
    if e["scheduler"] is not None and e["workers"] is not None:
        ctx.problem(
            "execution.workers",
            "give either `scheduler` (a running cluster) or `workers` (a LocalCluster the harness starts), not both",
            ctx.nodes["execution.workers"],
        )
        return None
    return Execution(**e)
