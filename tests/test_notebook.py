"""examples/lab.ipynb runs top to bottom on a fresh kernel (the .venv's Python, through a
kernelspec made in a temporary folder: offline), in a copy of the repository's sample data;
its numbers equal `harness run`'s for the same config, pytrec_eval's and scipy's."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys

import nbformat
import pytest
import pytrec_eval
from nbclient import NotebookClient
from scipy import stats as sps

from .conftest import REPO

NOTEBOOK = REPO / "examples" / "lab.ipynb"

PROBE = """\
import json
print(json.dumps({
    "hits": hits[["qid", "docno", "rank", "score"]].values.tolist(),
    "texts": hits["text"].tolist(),
    "evaluate": means.iloc[0].to_dict(),
    "means": {run: row.to_dict() for run, row in result.means.iterrows()},
    "comparisons": result.comparisons.to_dict("records"),
    "wilcoxon": wilcoxon[["measure", "run", "p"]].values.tolist(),
    "per_topic": result.per_topic.values.tolist(),
    "output": str(result.output),
}))
"""


def test_committed_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) >= 8
    assert all(not c.outputs and c.execution_count is None for c in code)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("notebook")
    for d in ("examples", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / d, tmp / d)
    (tmp / "indexes").mkdir()
    kernels = tmp / "jupyter" / "kernels" / "harness-venv"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "harness .venv",
                "language": "python",
            }
        )
    )
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(tmp / "jupyter"))
    mp.delenv("HARNESS_INDEXES", raising=False)
    nb = nbformat.read(tmp / "examples" / "lab.ipynb", as_version=4)
    client = NotebookClient(
        nb, kernel_name="harness-venv", timeout=600, resources={"metadata": {"path": str(tmp / "examples")}}
    )
    try:
        with client.setup_kernel():
            for i, cell in enumerate(list(nb.cells)):
                client.execute_cell(cell, i)
            # two probes, run in the same kernel after the notebook (never saved into it)
            probe = nbformat.v4.new_code_cell(PROBE)
            info = nbformat.v4.new_code_cell("import sys; print(sys.executable)")
            nb.cells += [probe, info]
            client.execute_cell(probe, len(nb.cells) - 2)
            client.execute_cell(info, len(nb.cells) - 1)
            del nb.cells[-2:]
    finally:
        mp.undo()
    out = json.loads("".join(o.get("text", "") for o in probe.outputs if o.output_type == "stream"))
    return tmp, nb, out, info.outputs[0]["text"].strip()


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_runs_on_the_venv_kernel_with_every_cell_ok(executed):
    tmp, nb, _, executable = executed
    assert executable == sys.executable
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
    svg = nb.cells[-1].outputs[0]["data"]
    assert "image/svg+xml" in svg and "AP: dirichlet − bm25" in svg["image/svg+xml"]
    assert "text/html" in nb.cells[11].outputs[0]["data"]  # the Result's summary table


def test_numbers_equal_the_clis_for_the_same_config(executed):
    tmp, _, out, _ = executed
    cfg = tmp / "examples" / "cli.yaml"
    cfg.write_text(
        "name: notebook\n"
        "collection: {path: ../corpora, format: text-folder}\n"
        "topics: ../topics/demo.tsv\n"
        "qrels: ../qrels/demo.txt\n"
        "runs: [{bm25: {k1: 0.9, b: 0.4}}, {dirichlet: {mu: 1000}}]\n"
        "measures: [AP, nDCG@10, P@10, RR]\n"
        "compare: {baseline: 'bm25(k1=0.9,b=0.4)', test: t, correction: holm}\n"
        "output: ../reports/cli\n"
    )
    r = subprocess.run([sys.executable, "-m", "harness", "run", str(cfg)], cwd=tmp, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    cli = tmp / "reports" / "cli"
    assert out["output"] == str((tmp / "reports" / "notebook").resolve())
    for row in _csv(cli / "summary.csv"):
        assert {m: float(row[m]) for m in ("AP", "nDCG@10", "P@10", "RR")} == out["means"][row["run"]]
    comp = _csv(cli / "comparisons.csv")
    assert len(comp) == len(out["comparisons"]) == 4
    for row, mine in zip(comp, out["comparisons"]):
        for k in ("measure", "run", "baseline"):
            assert row[k] == mine[k]
        for k in ("diff", "ci_low", "ci_high", "p", "p_corrected"):
            assert float(row[k]) == mine[k], k
    # the notebook's search is the CLI's run, cut at 5
    runs = {}
    for line in (cli / "runs" / "bm25.trec").read_text().splitlines():
        q, _, d, rank, score, _ = line.split()
        runs.setdefault(q, []).append([q, d, int(rank), float(score)])
    assert out["hits"] == runs["1"][:5] + runs["3"][:5]
    assert out["texts"][0] == (tmp / "corpora" / out["hits"][0][1]).read_text(encoding="utf-8")


def test_evaluate_and_wilcoxon_equal_the_oracles(executed):
    tmp, _, out, _ = executed
    qrels = {}
    for line in (tmp / "qrels" / "demo.txt").read_text().splitlines():
        q, _, d, label = line.split()
        if q in ("1", "3"):
            qrels.setdefault(q, {})[d] = int(label)
    run = {}
    for q, d, _, s in out["hits"]:
        run.setdefault(q, {})[d] = s
    te = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "recall_5", "map", "ndcg_cut_5", "recip_rank"}).evaluate(run)
    names = {"P@5": "P_5", "R@5": "recall_5", "AP": "map", "nDCG@5": "ndcg_cut_5", "RR": "recip_rank"}
    for m, t in names.items():
        assert out["evaluate"][m] == pytest.approx(sum(v[t] for v in te.values()) / 2, abs=1e-12)
    per = {}
    for run_name, _qid, measure, value in out["per_topic"]:
        per.setdefault((run_name, measure), []).append(value)
    for measure, run_name, p in out["wilcoxon"]:
        x, y = per[(run_name, measure)], per[("bm25", measure)]
        if x == y:  # identical runs: the harness's documented p = 1.0 (scipy: NaN)
            assert p == 1.0
        else:
            assert p == pytest.approx(sps.wilcoxon(x, y).pvalue, rel=1e-12)
