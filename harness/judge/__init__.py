"""``harness judge``: a local web page to judge the pooled results of runs into a TREC qrels file,
with each run's metrics recomputed from the judgments as they are made.

``session`` prepares everything that needs Java (runs, pools, documents, analysis) before the
server starts; ``store`` is the qrels file (appends, atomic rewrites, locking); ``app`` the
Starlette app and its templates; ``server`` binds (loopback unless told) and serves. Importing
this package starts nothing.
"""

from harness.judge.server import check_host, serve
from harness.judge.store import QrelsStore

__all__ = ["run_judge"]


def run_judge(session, qrels_path, host="127.0.0.1", port=8765, allow_remote=False, out=None) -> int:
    """Serve the judging page for a prepared session until Ctrl-C."""
    check_host(host, allow_remote)
    store = QrelsStore(qrels_path)
    return serve(session, store, host, port, allow_remote, out=out)
