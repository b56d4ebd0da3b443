"""Dask's log silenced while the harness runs it: a lost scheduler, a killed worker or an
interrupt is one `harness: error:` (or `harness: interrupted`) paragraph, not Dask's tracebacks
on stderr besides. `--debug` (which sets HARNESS_JAVA_LOG=1) lets them through.

Three places log: the driver's own loggers (:func:`quiet_driver`, restored by
:func:`restore_logs` when the client closes), the workers of the harness's own LocalCluster,
which write to the harness's stderr (:func:`quiet_workers`), and the client's event loop
(:func:`quiet_loop`).
"""

from __future__ import annotations

import logging
import os

from harness import lazy

distributed = lazy.module("distributed")

__all__ = ["quiet_driver", "restore_logs", "quiet_workers", "quiet_loop"]


def quiet_driver() -> dict[str, int]:
    """Silence Dask's own log in this process (distributed must be imported first: it makes its
    loggers then); the levels replaced, for :func:`restore_logs`; none under `--debug`."""
    if os.environ.get("HARNESS_JAVA_LOG") == "1":
        return {}
    levels = {}
    names = ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
    # and tornado's, which logs an exception in a callback of Dask's: Ctrl-C landing in
    # distributed.utils.sync before its future exists printed "tornado.application - ERROR"
    # and a NameError's traceback above `harness: interrupted` (test_dask_faults, one run in a few)
    names.append("tornado.application")
    for name in names:
        logger = logging.getLogger(name)
        levels[name] = logger.level
        logger.setLevel(logging.CRITICAL + 1)
    return levels


def restore_logs(levels: dict[str, int]) -> None:
    """The loggers :func:`quiet_driver` silenced, back at their levels."""
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def quiet_workers():
    """A worker plugin that silences Dask's log on the workers of the harness's own LocalCluster:
    they write to the harness's stderr, and `silence_logs` quiets only their nanny's logger. A
    worker's heartbeat that met the scheduler already closed (Ctrl-C or SIGTERM while the shards
    were indexed) printed "distributed.worker - ERROR" and a traceback after `harness: interrupted`."""

    # a base read through the lazy module (distributed is imported when a cluster starts): no
    # name mypy can resolve in a class statement
    class QuietWorkers(distributed.WorkerPlugin):  # type: ignore[name-defined]
        name = "harness-quiet-logs"

        def setup(self, worker):
            _silence_dask_logs()

    return QuietWorkers()


def _silence_dask_logs() -> None:
    for name in ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def quiet_loop(client) -> None:
    """Drop distributed's AllExit from the client's event loop's "Task exception was never
    retrieved" log: its internal signal to stop waiting, left unretrieved when a gather is cut
    by Ctrl-C (a traceback on stderr after the one-line "interrupted")."""
    loop = getattr(client.loop, "asyncio_loop", None)
    if loop is None:
        return
    previous = loop.get_exception_handler()
    if getattr(previous, "harness", False):
        return

    def handler(loop, context):
        if type(context.get("exception")).__name__ == "AllExit":
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    handler.harness = True  # type: ignore[attr-defined]  # marks the handler installed (a function's attribute)
    loop.set_exception_handler(handler)
