"""The README's loop in a real browser (Playwright driving Debian's /usr/bin/chromium): run the demo,
open the report's topic explorer, start `harness judge` on the demo config for two similarities,
judge every topic's pooled top 10 with keys and clicks, reload, stop with Ctrl-C, and check the
qrels file and the metrics the page shows against pytrec_eval on the runs and the written file.
Markup in documents and queries must show as text. Screenshots: tests/conftest.py's `screenshots`."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

import pytest
import pytrec_eval
from playwright.sync_api import expect, sync_playwright

from harness.config import load_config
from harness.experiment.execute import run_experiment

from .conftest import REPO, demo_config, three_runs, tiny_report, write_full_report
from .docs import section

CHROMIUM = "/usr/bin/chromium"
RUNS = ("bm25(k1=0.9,b=0.4)", "dirichlet(mu=1000)")
MEASURES = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "R@1000": "recall_1000"}


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """configs/demo.yaml with its index and report in a temporary folder, run as `make demo` does."""
    tmp = tmp_path_factory.mktemp("demo")
    cfg = load_config(demo_config(tmp))
    result = run_experiment(cfg)
    write_full_report(result, cfg.output)
    return tmp, cfg, result


def _start_judge(args: list[str], env=None) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "judge", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    line = proc.stdout.readline()
    m = re.match(r"judging page: (http://127\.0\.0\.1:\d+/) ", line)
    if not m:
        proc.kill()
        pytest.fail(f"no URL printed: {line!r} {proc.stderr.read()}")
    return proc, m.group(1)


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    return out


def test_explorer_in_the_report(demo, browser, screenshots):
    tmp, cfg, result = demo
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.goto((cfg.output / "report.html").resolve().as_uri() + "#explorer")
    rows = page.locator("#explorer table.topics tbody tr")
    assert rows.count() == 15
    # sorted by the per-topic AP difference (jm − bm25: the best run by mean AP against the first)
    ev = result.evaluations
    shown = ["bm25(k1=0.9,b=0.4)", max((n for n in ev if n != "bm25(k1=0.9,b=0.4)"), key=lambda n: ev[n].means["AP"])]
    diffs = [float(t) for t in rows.locator("td:last-child").all_inner_texts()]
    assert diffs == sorted(diffs, reverse=True)
    expected = sorted(ev[shown[1]].per_topic["AP"][q] - ev[shown[0]].per_topic["AP"][q] for q, _ in result.topics)
    assert diffs == pytest.approx(expected[::-1], abs=1e-4)
    # keyboard: Tab reaches the first topic's summary, Enter opens it
    first = page.locator("details.topic").first
    assert not first.evaluate("d => d.open")
    first.locator("summary").focus()
    page.keyboard.press("Enter")
    assert first.evaluate("d => d.open")
    cols = first.locator(".col")
    assert cols.count() == 2 and result.config.name_of(shown[0]) in cols.nth(0).locator("h4").inner_text()
    hits = cols.nth(0).locator("ol.hits li")
    assert hits.count() == 20
    qid = rows.first.locator("td").first.inner_text()
    docs = result.runs[0].run.ranked(qid)[0][:20]
    assert [h.split()[1] for h in hits.all_inner_texts()] == docs
    # the other topics are drawn when they open (a script opening them, as a link does: toggle)
    assert first.locator(".body").inner_text() and page.locator("details.topic .col").count() == 2
    page.evaluate("() => document.querySelectorAll('details.topic').forEach(d => { d.open = true; })")
    page.wait_for_function("() => [...document.querySelectorAll('details.topic')].every(d => d.dataset.drawn)")
    assert page.locator("details.topic .col").count() == 2 * 15
    # highlights: analyzer terms, stems included ("models" marked for the query "language model")
    marks = {m.lower() for m in page.locator("details.topic mark").evaluate_all("ms => ms.map(m => m.textContent)")}
    assert "model" in marks and ("models" in marks or "modeling" in marks)
    assert page.locator("details.topic .judg", has_text="unjudged").count() > 0
    assert page.locator("details.topic .move").count() > 0
    page.screenshot(path=str(screenshots / "explorer.png"), full_page=False)
    page.close()


def test_explorer_of_three_runs_in_the_report(browser, tmp_path, screenshots):
    """Three runs shown (bm25, its identical copy, and flat, far worse): the topics come in the order
    of their largest difference from bm25 among the other two (flat's, as copy's are all 0), and
    each later column marks its rank changes. Every wait is on a condition of the page."""
    cfg, result = three_runs(tmp_path)
    ap = {n: ev.per_topic["AP"] for n, ev in result.evaluations.items()}
    key = {q: ap["flat"][q] - ap["bm25"][q] for q, _ in result.topics}
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.goto((cfg.output / "report.html").resolve().as_uri() + "#explorer")
    rows = page.locator("#explorer table.topics tbody tr")
    expect(rows).to_have_count(15)
    assert rows.locator("td:first-child").all_inner_texts() == sorted(key, key=lambda q: (-key[q], int(q)))
    last = page.locator("details.topic").last  # the largest loss
    last.locator("summary").click()
    cols = last.locator(".col")
    expect(cols).to_have_count(3)
    assert [h.split()[0] for h in cols.locator("h4").all_inner_texts()] == ["bm25", "copy", "flat"]
    hits = cols.nth(2).locator("ol.hits li")
    expect(hits.first).to_be_visible()
    assert hits.count() == min(20, len(result.runs[2].run.ranked(rows.last.locator("td").first.inner_text())[0]))
    expect(cols.nth(2).locator(".move")).to_have_count(hits.count())  # each of flat's hits: its rank change
    expect(cols.nth(0).locator(".move")).to_have_count(0)
    last.screenshot(path=str(screenshots / "explorer-three-runs.png"))
    page.close()


def test_judge_the_demo_topics_for_two_similarities(demo, browser, tmp_path, screenshots):
    """The README's "done when": judge every demo topic's pooled top 10 of two similarities (keys
    and clicks), reload, stop with Ctrl-C; the file holds each judgment once and the metrics shown
    equal pytrec_eval's on the two runs with that file."""
    tmp, cfg, result = demo
    truth: dict[tuple[str, str], int] = {}
    for line in (REPO / "qrels" / "demo.txt").read_text().splitlines():
        q, _, d, r = line.split()
        truth[q, d] = int(r)
    qrels_path = tmp_path / "my-qrels.txt"
    proc, url = _start_judge([str(tmp / "demo.yaml"), "--qrels", str(qrels_path), "--runs", *RUNS, "--depth", "10"])
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(url + "topic/0")
        written: dict[tuple[str, str], int] = {}
        for n in range(15):
            qid = re.search(r"Topic (\S+) \(", page.locator("main > p").first.inner_text()).group(1)
            docs = page.locator("li.doc")
            pool = [docs.nth(i).get_attribute("data-doc") for i in range(docs.count())]
            ranked = {name: r.run.ranked(qid)[0][:10] for name, r in ((r.name, r) for r in result.runs)}
            assert sorted(pool) == sorted(set(ranked[RUNS[0]]) | set(ranked[RUNS[1]]))
            for i, doc in enumerate(pool):
                label = truth.get((qid, doc), 0)
                if i == 0:  # the first by clicking its button, the rest by keys
                    docs.nth(0).locator(f'button[value="{label}"]').click()
                    page.keyboard.press("j")
                else:
                    page.keyboard.press(str(label))
                written[qid, doc] = label
            expect(page.locator("body")).to_have_attribute("data-pending", "0")
            assert page.locator("#done").inner_text() == str(len(pool))
            if n == 0:
                docs.nth(1).locator(".snippet").click()  # full text on click
                assert docs.nth(1).locator("details").evaluate("d => d.open")
                page.screenshot(path=str(screenshots / "judge-topic.png"))
            if n < 14:
                page.keyboard.press("n")
                page.wait_for_url(url + f"topic/{n + 1}")
        # change one judgment: the file is rewritten, not appended to
        page.goto(url + "topic/0")
        first = page.locator("li.doc").first
        doc0 = first.get_attribute("data-doc")
        qid0 = "1"
        new = 3 if written[qid0, doc0] != 3 else 2
        first.focus()
        page.keyboard.press(str(new))
        expect(page.locator("body")).to_have_attribute("data-pending", "0")
        written[qid0, doc0] = new
        # reload: the page shows what the file holds
        page.reload()
        assert page.locator("li.doc").first.get_attribute("data-label") == str(new)
        page.goto(url)
        shown = {}
        for run in RUNS:
            for m in MEASURES:
                # the page calls runs by their names (--runs took their specs)
                cell = page.locator(f'#means td[data-run="{result.config.name_of(run)}"][data-measure="{m}"]')
                shown[run, m] = float(cell.inner_text())
        assert page.locator("#judged-topics").inner_text() == "15"
        page.screenshot(path=str(screenshots / "judge-index.png"), full_page=True)
        page.close()
    finally:
        out = _stop(proc)
    assert "stopped;" in out
    lines = qrels_path.read_text().splitlines()
    assert len(lines) == len(written) == len(set(lines))
    assert {(q, d): int(r) for q, _, d, r in (line.split() for line in lines)} == written
    # the oracle: pytrec_eval on the two runs (as cached) and the qrels file the page wrote
    qrels: dict[str, dict[str, int]] = {}
    for (q, d), r in written.items():
        qrels.setdefault(q, {})[d] = r
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values()))
    for r in result.runs:
        if r.name not in RUNS:
            continue
        trec = {q: {d: float(s) for d, s in zip(*r.run.ranked(q))} for q in r.run.topics()}
        per = ev.evaluate(trec)
        for m, theirs in MEASURES.items():
            assert shown[r.name, m] == pytest.approx(sum(v[theirs] for v in per.values()) / 15, abs=5e-5)


def test_markup_in_documents_and_queries_shows_as_text(browser, tmp_path, screenshots):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "evil.txt").write_text('<script>alert(1)</script> wing flow <b onclick="x()">bold</b> & more')
    (folder / "plain.txt").write_text("flow over a wing, and wings in flows")
    env = {**os.environ, "HARNESS_INDEXES": str(tmp_path / "indexes")}
    query = "<i>wing</i> flow"
    proc, url = _start_judge(["--index", str(folder), "--queries", query, "--qrels", str(tmp_path / "q.txt")], env)
    try:
        page = browser.new_page()
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url + "topic/0")
        assert page.locator("#query").inner_text() == query
        evil = page.locator('li.doc[data-doc="evil.txt"]')
        assert '<script>alert(1)</script> wing flow <b onclick="x()">bold</b>' in evil.locator(".snippet").inner_text()
        assert page.locator("li.doc b, li.doc script, #query i").count() == 0
        marks = page.locator('li.doc[data-doc="plain.txt"] .snippet mark').all_inner_texts()
        assert marks == ["flow", "wing", "wings", "flows"]  # stems: the analyzer's matches
        page.screenshot(path=str(screenshots / "judge-markup.png"))
        assert dialogs == []
        page.close()
    finally:
        _stop(proc)
    shutil.rmtree(tmp_path / "indexes", ignore_errors=True)


def test_explorer_shows_markup_as_text(browser, tmp_path, screenshots):
    cfg = tiny_report(
        tmp_path,
        "markup",
        '{"id": "<b>d1</b>", "contents": "<script>alert(1)</script> wing flow"}\n'
        '{"id": "d2", "contents": "flows past wings"}\n',
        "<i>q</i>\t<u>wing</u> flow\n",
    )
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto((cfg.output / "report.html").resolve().as_uri() + "#t0")
    topic = page.locator("details.topic").first
    assert topic.evaluate("d => d.open")  # following the link opened it
    assert "<i>q</i>: <u>wing</u> flow" in topic.locator("summary").inner_text()
    assert "<b>d1</b>" in topic.locator("ol.hits").inner_text()
    assert "<script>alert(1)</script>" in topic.locator("ol.hits").inner_text()
    assert page.locator("details.topic b, details.topic i, details.topic u, main script").count() == 0
    assert sorted(topic.locator("mark").all_inner_texts()) == ["flow", "flows", "wing", "wings"]
    page.screenshot(path=str(screenshots / "explorer-markup.png"))
    assert dialogs == []
    page.close()


def _readme_loop() -> list[list[str]]:
    text = section("The lab loop: query, judge, evaluate, compare")
    block = re.search(r"```sh\n(.*?)```", text, re.S).group(1).replace("\\\n", " ")
    return [shlex.split(line) for line in block.splitlines() if line.startswith(".venv/bin/harness")]


def test_the_readme_lab_loop(browser, tmp_path):
    """The README's lab loop as written: query, judge in the browser (keys), evaluate, compare."""
    steps = _readme_loop()
    assert [s[1] for s in steps] == ["lab"] * 4 and "--judge" in steps[1] and "--qrels" in steps[2]
    env = {**os.environ, "HARNESS_INDEXES": str(tmp_path / "indexes")}
    run = (
        lambda argv: subprocess.run(  # noqa: E731
            [sys.executable, "-m", "harness", *argv[1:]], cwd=REPO, capture_output=True, text=True, env=env, timeout=300
        )
    )
    assert run(steps[0]).returncode == 0
    qrels = tmp_path / "my-qrels.txt"
    argv = [str(qrels) if a == "my-qrels.txt" else a for a in steps[1]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *argv[1:], "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    while True:  # the lab's own output first, then the URL
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        m = re.match(r"judging page: (http://127\.0\.0\.1:\d+/) ", line)
        if m:
            break
    url = m.group(1)
    try:
        page = browser.new_page()
        for n in range(2):
            page.goto(url + f"topic/{n}")
            for i in range(page.locator("li.doc").count()):
                page.keyboard.press("1" if i % 3 == 0 else "0")
            expect(page.locator("body")).to_have_attribute("data-pending", "0")
        page.close()
    finally:
        _stop(proc)
    lines = qrels.read_text().splitlines()
    assert len(lines) == 20 and {line.split()[0] for line in lines} == {"vector_space_model", "language_model"}
    for step in steps[2:]:
        r = run([str(qrels) if a == "my-qrels.txt" else a for a in step])
        assert r.returncode == 0, r.stderr
        assert "mean over 2 judged queries" in r.stdout and "trec_eval's" in r.stdout
