"""The judging page: a Starlette app with Jinja2 templates (autoescaped) and no build step.

Pages: ``/`` (topics, progress, each run's metrics over the judged topics) and ``/topic/N`` (the
N-th topic's pool with snippets, full text on click, buttons and keys 0-3). ``POST /judge``
records one judgment in the qrels file before it answers (JSON for the page's script, a redirect
back for a plain form post), with the metrics recomputed from the file.

**Requests from elsewhere are refused.** Every request must name this server in ``Host`` (a
page of another site reaching 127.0.0.1 through DNS rebinding names its own host); a ``POST``
must carry the page's token (random per server start, only readable by our own pages), and is
refused when its ``Origin`` is another origin or the browser marks it ``Sec-Fetch-Site:
cross-site``. Responses carry a Content-Security-Policy that allows only the page's own inline
script (by nonce) and requests to itself.
"""

from __future__ import annotations

import secrets
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from harness import lazy
from harness.engine.documents import match_spans, segments, snippet
from harness.errors import HarnessError
from harness.judge.session import JudgeSession, metrics
from harness.judge.store import LABELS, QrelsStore

if TYPE_CHECKING:  # annotations only
    from starlette.requests import Request
    from starlette.responses import Response

applications = lazy.module("starlette.applications")
concurrency = lazy.module("starlette.concurrency")
responses = lazy.module("starlette.responses")
routing = lazy.module("starlette.routing")
templating = lazy.module("starlette.templating")

__all__ = ["create_app"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
LABEL_NAMES = {0: "not relevant", 1: "relevant", 2: "highly relevant", 3: "perfectly relevant"}


async def _form(request: Request) -> dict[str, str] | None:
    """A url-encoded form body (what the page's forms and script send), at most 64 KB; parsed
    with the standard library, so the app needs no multipart parser."""
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > 65536:
            return None
    try:
        pairs = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=16)
    except (UnicodeDecodeError, ValueError):
        return None
    return dict(pairs)


def _fmt(v) -> str:
    return "" if v is None else f"{v:.4f}"


def create_app(session: JudgeSession, store: QrelsStore, hosts: set[str], origins: set[str]):
    """The ASGI app. ``hosts``: accepted ``Host`` header values (host:port); ``origins``: accepted
    ``Origin`` values. The page token is the returned app's ``token`` attribute (for tests)."""
    token = secrets.token_urlsafe(32)
    templates = templating.Jinja2Templates(directory=str(TEMPLATES))
    templates.env.globals.update(fmt=_fmt, LABELS=LABELS, LABEL_NAMES=LABEL_NAMES)

    def page(request: Request, name: str, **context) -> Response:
        nonce = secrets.token_urlsafe(16)
        context.update(token=token, nonce=nonce, session=session, store_path=str(store.path))
        resp = templates.TemplateResponse(request, name, context)
        resp.headers["Content-Security-Policy"] = (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; "
            "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        )
        return resp

    def state():
        generation, judgments = store.snapshot()
        judged, means, per_topic = metrics(session, judgments)
        return generation, judgments, judged, means, per_topic

    async def index(request: Request) -> Response:
        _, judgments, judged, means, _ = state()
        rows = []
        for i, t in enumerate(session.topics):
            j = judgments.get(t.qid, {})
            rows.append((i, t, sum(1 for d in t.pool if d in j), len(j)))
        return page(request, "index.html", rows=rows, judged=judged, means=means)

    async def topic(request: Request) -> Response:
        try:
            i = int(request.path_params["n"])
            t = session.topics[i]
        except (ValueError, IndexError):
            return responses.PlainTextResponse("no such topic", status_code=404)
        _, judgments, judged, means, per_topic = state()
        labels = judgments.get(t.qid, {})
        docs = []
        for n, d in enumerate(t.pool):
            text = session.texts[d]
            spans = match_spans(session.tokens[d], t.terms)
            s, e = snippet(text, spans)
            docs.append(
                {
                    "n": n,
                    "id": d,
                    "label": labels.get(d),
                    "snippet": segments(text, spans, s, e),
                    "before": s > 0,
                    "after": e < len(text),
                    "full": segments(text, spans),
                }
            )
        topic_values = {run: {m: v[m].get(t.qid) for m in session.measures} for run, v in per_topic.items()}
        return page(
            request,
            "topic.html",
            i=i,
            t=t,
            docs=docs,
            judged=judged,
            means=means,
            topic_values=topic_values,
            done=sum(1 for d in t.pool if d in labels),
            prev=i - 1 if i > 0 else None,
            next=i + 1 if i + 1 < len(session.topics) else None,
        )

    async def judge(request: Request) -> Response:
        form = await _form(request)
        if form is None:
            return responses.PlainTextResponse(
                "expected a form post (application/x-www-form-urlencoded)", status_code=400
            )
        if not secrets.compare_digest(str(form.get("token", "")), token):
            return responses.PlainTextResponse("stale or missing page token: reload the page", status_code=403)
        try:
            i = int(str(form.get("topic", "")))
            t = session.topics[i]
            label = int(str(form.get("label", "")))
        except (ValueError, IndexError):
            return responses.PlainTextResponse("bad topic or label", status_code=400)
        doc = str(form.get("doc", ""))
        if doc not in t.pool:
            return responses.PlainTextResponse("that document is not in this topic's pool", status_code=400)
        if label not in LABELS:
            return responses.PlainTextResponse(f"label must be one of {', '.join(map(str, LABELS))}", status_code=400)
        try:
            status = await concurrency.run_in_threadpool(store.judge, t.qid, doc, label)
        except HarnessError as e:
            return responses.PlainTextResponse(str(e), status_code=500)
        if "application/json" not in request.headers.get("accept", ""):
            return responses.RedirectResponse(f"/topic/{i}", status_code=303)
        generation, judgments, judged, means, per_topic = await concurrency.run_in_threadpool(state)
        labels = judgments.get(t.qid, {})
        return responses.JSONResponse(
            {
                "status": status,
                "generation": generation,
                "doc": doc,
                "label": label,
                "done": sum(1 for d in t.pool if d in labels),
                "pool": len(t.pool),
                "judged_topics": len(judged),
                "means": means,
                "topic": {run: {m: v[m].get(t.qid) for m in session.measures} for run, v in per_topic.items()},
            }
        )

    async def metrics_json(request: Request) -> Response:
        generation, _, judged, means, per_topic = state()
        return responses.JSONResponse(
            {"generation": generation, "judged_topics": judged, "means": means, "per_topic": per_topic}
        )

    app = applications.Starlette(
        routes=[
            routing.Route("/", index),
            routing.Route("/topic/{n}", topic),
            routing.Route("/judge", judge, methods=["POST"]),
            routing.Route("/metrics", metrics_json),
        ]
    )

    async def guard(scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            reason = None
            if headers.get("host", "") not in hosts:
                reason = "unknown Host: this server answers only to its own address"
            elif scope["method"] not in ("GET", "HEAD"):
                origin = headers.get("origin")
                if origin is not None and origin not in origins:
                    reason = "cross-origin request refused"
                elif headers.get("sec-fetch-site") == "cross-site":
                    reason = "cross-site request refused"
            if reason:
                await responses.PlainTextResponse(reason, status_code=403)(scope, receive, send)
                return
        await app(scope, receive, send)

    # for tests driving the app without a page (an attribute of the function, which mypy does not declare)
    guard.token = token  # type: ignore[attr-defined]
    return guard
