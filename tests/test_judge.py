"""harness judge without a browser: the qrels file (appends, atomic rewrites, no lost or doubled
line under concurrent posts from two clients), refusal of other origins and of non-local
addresses, and the metrics it shows against pytrec_eval on the written file."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import threading
import time

import httpx
import pytest
import pytrec_eval
import uvicorn

from harness.errors import AccessError, DataError
from harness.formats.run import Run
from harness.judge.app import create_app
from harness.judge.server import bind, check_host
from harness.judge.session import JudgeSession, Topic, metrics, pool_order
from harness.judge.store import QrelsStore

from .conftest import REPO


def _session(n_docs: int = 12) -> JudgeSession:
    """A small session built by hand: two runs over two topics (no Java needed)."""
    docs = [f"d{i}" for i in range(n_docs)]
    runs = {
        "a": Run.from_ranked({"q1": (docs, list(range(n_docs, 0, -1))), "q2": (docs[:4], [4, 3, 2, 1])}),
        "b": Run.from_ranked({"q1": (docs[::-1], list(range(n_docs, 0, -1))), "q2": (docs[2:6], [4, 3, 2, 1])}),
    }
    topics = [
        Topic("q1", "wing <b>flow</b>", ("wing", "flow"), tuple(pool_order("q1", docs))),
        Topic("q2", "heat", ("heat",), tuple(pool_order("q2", docs[:6]))),
    ]
    texts = {d: f"text of {d} about wing flow <i>{d}</i>" for d in docs}
    return JudgeSession("t", topics, runs, ("AP", "P@5", "nDCG@10"), 10, texts, {d: [] for d in docs})


@contextlib.contextmanager
def _server(tmp_path, session=None):
    """The app served by uvicorn on a free loopback port, in a thread: (base URL, token, store)."""
    store = QrelsStore(tmp_path / "qrels.txt")
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    app = create_app(session or _session(), store, hosts, {f"http://{h}" for h in hosts})
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app.token, store
    finally:
        server.should_exit = True
        thread.join(20)
        sock.close()


def _post(client, token, topic, doc, label, **headers):
    return client.post(
        "/judge",
        data={"token": token, "topic": str(topic), "doc": doc, "label": str(label)},
        headers={"Accept": "application/json", **headers},
    )


def test_store_appends_rewrites_and_keeps_foreign_lines(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("x 0 other 1\nq1 0 d1 0")  # someone else's line, and no final newline
    store = QrelsStore(path)
    assert store.judgments() == {"x": {"other": 1}, "q1": {"d1": 0}}
    assert store.judge("q1", "d2", 2) == "added"
    assert path.read_text() == "x 0 other 1\nq1 0 d1 0\nq1 0 d2 2\n"
    assert store.judge("q1", "d2", 2) == "unchanged"
    assert store.judge("q1", "d1", 3) == "changed"
    assert path.read_text() == "x 0 other 1\nq1 0 d1 3\nq1 0 d2 2\n"
    # a second store (another server) sees the first one's writes and never doubles a pair
    other = QrelsStore(path)
    assert other.judge("q1", "d2", 1) == "changed" and store.label("q1", "d2") == 1
    assert path.read_text().count("d2") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt"]  # no temp or lock file left


def test_two_stores_of_one_file_in_one_process_take_turns(tmp_path, monkeypatch):
    """Two stores of one file in one process (two sessions of a notebook), judging the same
    pairs from threads: each pair is in the file once. harness.folders' lock is re-entrant within
    a process, so the file's own lock in the process makes them take turns (the append is slowed
    so that a missing lock shows)."""
    path = tmp_path / "q.txt"
    stores = [QrelsStore(path), QrelsStore(path)]
    append = QrelsStore._append

    def slow_append(self, line):
        time.sleep(0.005)
        append(self, line)

    monkeypatch.setattr(QrelsStore, "_append", slow_append)
    docs = [f"d{i}" for i in range(15)]
    barrier = threading.Barrier(4)

    def go(store, label):
        barrier.wait()
        for d in docs:
            store.judge("q1", d, label)

    threads = [threading.Thread(target=go, args=(stores[i % 2], 1 + i % 2)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    lines = path.read_text().splitlines()
    assert sorted(line.split()[2] for line in lines) == sorted(docs)  # once each
    assert QrelsStore(path).judgments()["q1"].keys() == set(docs)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt"]


def test_a_changed_label_keeps_the_files_mode(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 0\n")
    path.chmod(0o640)
    store = QrelsStore(path)
    assert store.judge("q1", "d1", 2) == "changed"
    assert path.read_text() == "q1 0 d1 2\n" and path.stat().st_mode & 0o777 == 0o640


def test_a_folder_the_store_cannot_write_in_is_refused_at_once(tmp_path, monkeypatch):
    """Judging writes beside the qrels file (the lock, a temporary file for a changed label):
    a folder that refuses it is an error naming the file and folder before the page opens
    (simulated: tests may run as root, which chmod cannot stop); nothing is written."""
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 1\n")
    real_open = os.open

    def guarded_open(p, flags, *a, **k):
        if str(p).startswith(str(tmp_path)) and flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(p))
        return real_open(p, flags, *a, **k)

    monkeypatch.setattr(os, "open", guarded_open)
    with pytest.raises(AccessError, match=rf"q.txt: --qrels: cannot write in its folder {tmp_path} \(Read-only"):
        QrelsStore(path)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt"] and path.read_text() == "q1 0 d1 1\n"


def test_store_rejects_bad_files(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 0 d1 1\nq1 0 d1 2\n")
    with pytest.raises(DataError, match=r"bad.txt:2: .*judged twice"):
        QrelsStore(bad)
    bad.write_text("q1 0 d1 x\n")
    with pytest.raises(DataError, match=r"bad.txt:1: label 'x' is not an integer"):
        QrelsStore(bad)
    with pytest.raises(DataError, match="does not exist"):
        QrelsStore(tmp_path / "no" / "q.txt")
    # the readers' shared hygiene (harness.formats.hygiene), as read_qrels applies it
    bad.write_text("q1 0 d1 1\nq1 0 d\x1b2 1\n")
    with pytest.raises(DataError, match=r"bad.txt:2: doc id .*control character"):
        QrelsStore(bad)
    bad.write_bytes(b"q1 0 d1 1\nq1 0 d\xff 1\n")
    with pytest.raises(DataError, match=r"bad.txt:2: not UTF-8"):
        QrelsStore(bad)
    bad.write_bytes(b"q1 0 d1 1\n" + b"x" * (2 << 20) + b"\n")
    with pytest.raises(DataError, match=r"bad.txt:2: line longer than"):
        QrelsStore(bad)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="FIFO"):  # refused before open, which would block
        QrelsStore(fifo)
    bad.write_text("q1 0 d1 1\n")
    store = QrelsStore(bad)  # a judgment with a bad id never reaches the file
    with pytest.raises(DataError, match="doc id 'd 2' contains a space"):
        store.judge("q1", "d 2", 1)
    assert bad.read_text() == "q1 0 d1 1\n"


def test_store_skips_a_byte_order_mark(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(b"\xef\xbb\xbfq1 0 d1 1\r\nq1 0 d2 0\r\n")  # as Windows editors save it
    store = QrelsStore(path)
    assert store.judgments() == {"q1": {"d1": 1, "d2": 0}}
    assert store.judge("q1", "d3", 2) == "added"
    assert QrelsStore(path).judgments() == {"q1": {"d1": 1, "d2": 0, "d3": 2}}


def test_twenty_concurrent_posts_from_two_clients(tmp_path):
    """Two clients (two tabs: two connections) post 20 judgments at once over HTTP; 8 of them
    repeat a pair the other client judges too. Every pair ends up in the file exactly once."""
    session = _session(n_docs=12)
    pool = session.topics[0].pool
    want = {d: 1 + i % 3 for i, d in enumerate(pool)}
    with _server(tmp_path, session) as (url, token, _):
        clients = [httpx.Client(base_url=url, timeout=30), httpx.Client(base_url=url, timeout=30)]
        jobs = [(clients[i % 2], pool[i % 12]) for i in range(20)]
        barrier = threading.Barrier(len(jobs))
        codes = []

        def go(client, doc):
            barrier.wait()
            codes.append(_post(client, token, 0, doc, want[doc]).status_code)

        threads = [threading.Thread(target=go, args=job) for job in jobs]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        for c in clients:
            c.close()
    assert codes == [200] * 20
    lines = (tmp_path / "qrels.txt").read_text().splitlines()
    assert len(lines) == 12 and sorted(lines) == sorted(f"q1 0 {d} {v}" for d, v in want.items())


def test_other_origins_and_hosts_are_refused(tmp_path):
    with _server(tmp_path) as (url, token, store), httpx.Client(base_url=url) as client:
        _refusals(client, token, store, url, tmp_path)


def _refusals(client, token, store, url, tmp_path):
    assert client.get("/").status_code == 200
    assert client.get("/", headers={"Host": "evil.example:8765"}).status_code == 403  # DNS rebinding
    assert _post(client, token, 0, "d1", 1, Origin="http://evil.example").status_code == 403
    assert _post(client, token, 0, "d1", 1, **{"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert _post(client, "wrong", 0, "d1", 1).status_code == 403
    assert _post(client, token, 0, "not-pooled", 1).status_code == 400
    assert _post(client, token, 0, "d1", 7).status_code == 400
    assert not (tmp_path / "qrels.txt").exists()  # nothing refused was written
    r = _post(client, token, 0, "d1", 1, Origin=url)
    assert r.status_code == 200 and r.json()["status"] == "added"
    # a plain form post (no script) is answered with a redirect back to the topic
    r = client.post("/judge", data={"token": token, "topic": "0", "doc": "d2", "label": "0"})
    assert r.status_code == 303 and r.headers["location"] == "/topic/0"
    assert store.judgments() == {"q1": {"d1": 1, "d2": 0}}


def test_pages_escape_markup_and_carry_a_strict_policy(tmp_path):
    with _server(tmp_path) as (url, _, _):
        page = httpx.get(url + "/topic/0")
        missing = httpx.get(url + "/topic/9")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'nonce-" in csp
    assert "wing &lt;b&gt;flow&lt;/b&gt;" in page.text and "<b>flow</b>" not in page.text
    assert "&lt;i&gt;d1&lt;/i&gt;" in page.text and "<i>" not in page.text
    assert missing.status_code == 404


def test_metrics_equal_pytrec_eval_on_the_written_file(tmp_path):
    session = _session()
    labels = {("q1", "d0"): 2, ("q1", "d3"): 1, ("q1", "d11"): 0, ("q2", "d4"): 1, ("q2", "d5"): 3}
    with _server(tmp_path, session) as (url, token, _), httpx.Client(base_url=url) as client:
        for (q, d), label in labels.items():
            body = _post(client, token, 0 if q == "q1" else 1, d, label).json()
    qrels = {}
    for line in (tmp_path / "qrels.txt").read_text().splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    assert qrels == {"q1": {"d0": 2, "d3": 1, "d11": 0}, "q2": {"d4": 1, "d5": 3}}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "ndcg_cut_10"})
    for name, run in session.runs.items():
        trec = {q: {d: float(s) for d, s in zip(*run.ranked(q))} for q in run.topics()}
        per = ev.evaluate(trec)
        for ours, theirs in (("AP", "map"), ("P@5", "P_5"), ("nDCG@10", "ndcg_cut_10")):
            expected = sum(per[q][theirs] for q in per) / len(per)
            assert body["means"][name][ours] == pytest.approx(expected, abs=1e-12)
            assert body["topic"][name][ours] == pytest.approx(per["q2"][theirs], abs=1e-12)
    judged, means, _ = metrics(session, {})
    assert judged == [] and means == {}


def test_non_local_addresses_are_refused_unless_allowed():
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        check_host(host, allow_remote=False)
    for host in ("0.0.0.0", "192.168.1.5", "example.org", "::"):
        with pytest.raises(DataError, match="--allow-remote"):
            check_host(host, allow_remote=False)
        check_host(host, allow_remote=True)
    r = subprocess.run(
        [sys.executable, "-m", "harness", "judge", str(REPO / "configs" / "demo.yaml"), "--qrels", "x.txt"]
        + ["--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "--allow-remote" in r.stderr and not r.stdout
