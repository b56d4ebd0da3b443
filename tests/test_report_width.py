"""Run names keep the report on the screen: in Chromium at 1280x800, no table of report.html is
wider than the page, for the demo, the sweep config and a 12-run config (long canonical names
pushed Mean scores, Comparisons, Coverage and the topic explorer off it)."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import sync_playwright

from harness.verbs.run import load, run

from .conftest import REPO

pytestmark = [pytest.mark.java, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
TWELVE = """\
name: twelve
collection: {path: corpora, format: text-folder}
topics: topics/demo.tsv
qrels: qrels/demo.txt
runs:
  - bm25: {k1: [0.6, 0.9, 1.2], b: [0.3, 0.75]}
  - dirichlet: {mu: [500, 1000, 2000]}
  - axiomatic: {function: [f1exp, f2log]}
  - bm25: {rm3: {fb_terms: 20}}
measures: [AP, P@10, nDCG@10, RR, R@1000, bpref]
compare: {baseline: all-pairs, cross_validation: {folds: 3}}
output: reports/twelve
"""

WIDEST = """() => {
  const page = document.documentElement.clientWidth;
  return Array.from(document.querySelectorAll('table')).map(t => {
    const d = t.closest('details'); if (d) d.open = true;
    const h = t.closest('section, div')?.querySelector('h2, h3')?.textContent || '';
    return [t.scrollWidth, page, (t.querySelector('th')?.textContent || '') + ' / ' + h];
  });
}"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("width")
    for sub in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / sub, tmp / sub)
    (tmp / "indexes").mkdir()
    (tmp / "configs" / "twelve.yaml").write_text(
        TWELVE.replace("corpora", "../corpora")
        .replace("topics/", "../topics/")
        .replace("qrels/", "../qrels/")
        .replace("reports/", "../reports/")
    )
    out = {}
    for name in ("demo", "sweep", "twelve"):
        cfg = load(tmp / "configs" / f"{name}.yaml")
        assert name != "twelve" or len(cfg.names) >= 12, cfg.names
        out[name] = run(cfg).output / "report.html"
    return out


@pytest.mark.parametrize("name", ["demo", "sweep", "twelve"])
def test_no_table_is_wider_than_the_page(reports, name):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(reports[name].as_uri())
            tables = page.evaluate(WIDEST)
        finally:
            browser.close()
    assert len(tables) >= 4
    wide = [(w, where) for w, limit, where in tables if w > limit]
    assert not wide, wide
