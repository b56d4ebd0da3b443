"""Regenerate the documentation's generated blocks from the code, so they cannot drift. Each
block lives in one page of README.md and docs/*.md (found by its marker):

<!-- BEGIN config-reference -->   harness.config.reference_markdown()
<!-- BEGIN measures -->           harness.metrics' measure registry
<!-- BEGIN measure-aliases -->    the other names it accepts (trec_eval's, common spellings)
<!-- BEGIN audit -->              what each column of the reports' coverage audit counts
<!-- BEGIN fusion-methods -->     harness.policies' fusion methods and normalisations
<!-- BEGIN formats -->            harness.formats.catalog's collection and topics formats
<!-- BEGIN demo-output -->        the means table `make demo` prints (runs the demo config as `harness run`)
<!-- BEGIN study-output -->       the table across collections `harness run configs/study.yaml` prints
<!-- BEGIN reproduce-metadata --> docs/reproduce.md's worked example: the method and actor of its reproduced run's ir_metadata
<!-- BEGIN reproduce-compare -->  ... the table its `harness compare` prints
<!-- BEGIN reproduce-output -->   ... and what its `harness reproduce` prints (the page's commands, run)
<!-- BEGIN meta-output -->        its meta-analysis, with the runs and `compare:` of META_SETS

  .venv/bin/python scripts/gen_docs.py          # rewrite the pages
  .venv/bin/python scripts/gen_docs.py --check  # exit 1 if a page is stale (tests do this)
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def config_reference() -> str:
    from harness.config import reference_markdown

    return reference_markdown().strip()


def measures() -> str:
    """One row per measure family of harness.metrics' registry."""
    from harness.metrics.measures import MEASURES

    rows = ["| measure | cut-off | options | trec_eval | meaning |", "|---|---|---|---|---|"]
    for m in MEASURES.values():
        k = m.written("@k")  # MRR@k(msmarco): a family named after another evaluation
        form = {"required": f"`{k}`", "optional": f"`{m.written()}`, `{k}`", "none": f"`{m.name}`"}[m.cutoff]
        if m.float_cutoff:
            form = f"`{m.written('@r')}`"
        suffix = "_r" if m.float_cutoff else "_k"
        trec = " / ".join(f"`{t}`" for t in (m.trec, m.trec_cut and f"{m.trec_cut}{suffix}") if t) or "—"
        opts = ", ".join(f"`{o}=`" for o in m.options) or "—"
        rows.append(f"| {form} | {m.cutoff} | {opts} | {trec} | {m.doc.replace('|', '\\|')} |")
    return "\n".join(rows)


def measure_aliases() -> str:
    """The names accepted besides the canonical ones, from harness.metrics.measures.ALIASES."""
    from harness.metrics.measures import ALIASES, parse_measure

    examples = {
        "map": "map",
        "map_cut": "map_cut_10",
        "ndcg_cut": "ndcg_cut_10",
        "recip_rank": "recip_rank",
        "mrr": "MRR",
        "recall": "recall_100",
        "precision": "precision@10",
        "prec": "prec@10",
        "success": "success_1",
        "iprec_at_recall": "iprec_at_recall_0.50",
        "11pt_avg": "11pt_avg",
        "num_ret": "num_ret",
        "num_rel": "num_rel",
        "num_rel_ret": "num_rel_ret",
    }
    rows = ["| you type | also | is parsed as |", "|---|---|---|"]
    for alias in ALIASES:
        ex = examples.get(alias, alias)
        other = {"map_cut": "`map_cut.10`", "ndcg_cut": "`ndcg_cut.10`", "recall": "`recall.100`, `recall@100`"}
        rows.append(f"| `{ex}` | {other.get(alias, '')} | `{parse_measure(ex)}` |")
    rows.append("| `P_5` | `P.5`, `p@5` | `P@5` |")
    rows.append("| `MAP`, `Map`, `NDCG@10`, `Bpref` | any case of a canonical name | `AP`, `AP`, `nDCG@10`, `bpref` |")
    return "\n".join(rows)


def audit() -> str:
    """One row per column of the coverage audit, from harness.metrics.evaluate.AUDIT_COLUMNS."""
    from harness.metrics.evaluate import AUDIT_COLUMNS

    return "\n".join(["| column | counts |", "|---|---|", *(f"| `{k}` | {v} |" for k, v in AUDIT_COLUMNS.items())])


def fusion_methods() -> str:
    """One row per fusion method, then one per normalisation, of harness.policies' registry."""
    from harness.policies import FUSION_METHODS, NORMALIZATIONS

    rows = ["| method | options | runs | reads ranks | computes |", "|---|---|---|---|---|"]
    for name, m in FUSION_METHODS.items():
        opts = ", ".join(f"`{o}`" for o in m.options) or "—"
        runs = "two or more" if m.runs is None else f"exactly {m.runs}"
        rows.append(f"| `{name}` | {opts} | {runs} | {'yes' if m.ranks else 'no'} | {m.doc} |")
    rows += ["", "| `norm` | computes |", "|---|---|"]
    rows += [f"| `{name}` | {doc} |" for name, doc in NORMALIZATIONS.items()]
    return "\n".join(rows)


def formats() -> str:
    """One row per collection format, then one per topics format, of harness.formats.catalog."""
    from harness.formats.catalog import COLLECTION_FORMATS, TOPIC_FORMATS, Staging

    def runs(f) -> str:
        return "`knn`" if f.dense else "`impact`" if f.weights else "every model but `knn` and `impact`"

    def files(f) -> str:
        if f.dataset is not None:
            return "the files ir_datasets reads the id's documents from"
        if f.corpus_names:
            return f"a folder's {' or '.join(f.corpus_names)}, or that file"
        names = "every file" if f.suffixes is None else "the " + ", ".join(f.suffixes) + " files"
        rules = [
            *(["names matched case-sensitively, as Anserini does"] if f.exact_names else []),
            *([f"but names starting {' or '.join(f.skipped_names)}"] if f.skipped_names else []),
            *(
                [f"no folder {', '.join(sorted(set(n.lower() for n in f.skipped_folders)))}"]
                if f.skipped_folders
                else []
            ),
            *(["hidden names skipped"] if not f.hidden_read else []),
        ]
        where = f"{names} of a folder" if f.staging is Staging.TEXT_FILES else f"a file, or {names} of a folder"
        return where + (f" ({'; '.join(rules)})" if rules else "")

    def checked(f) -> str:
        if f.dense:
            return "every vector: finite numbers, one dimension"
        if f.documents is not None:  # the check's first line: "A JsonCollection document: an "id" ..."
            what = f.documents.__doc__.splitlines()[0].split(": ", 1)[1].rstrip(".")
            how = "a scan of the bytes, each line parsed where it finds a doubtful one" if f.scanned else "each parsed"
            return f"{what}; {how}"
        if f.docno_ids:
            return "`<DOCNO>` ids, when Anserini counts errors"
        return "none (read as they are)" if f.staging is Staging.AS_IS else "while converted: ids and text lengths"

    def classes(f) -> str:
        also = [f"`{f.anserini_parquet}` (Parquet files)"] * bool(f.anserini_parquet)
        also += [f"`{f.anserini_fields}` (`fields`)"] * bool(f.anserini_fields)
        return " or ".join([f"`{f.anserini}`", *also])

    rows = ["| collection `format` | Anserini reads it as | files read | documents checked | staged | runs |"]
    rows.append("|---|---|---|---|---|---|")
    for f in COLLECTION_FORMATS.values():
        name = f"`{f.choice}`" + ("" if f.written else f" (`collection: {{{f.name}: {f.argument}}}`)")
        rows.append(f"| {name} | {classes(f)} | {files(f)} | {checked(f)} | {f.staging.value} | {runs(f)} |")
    rows += ["", "| topics `format` | read by | runs |", "|---|---|---|"]
    for f in TOPIC_FORMATS.values():
        name = f"`{f.choice}`" + ("" if f.written else f" (`topics: {{{f.name}: {f.argument}}}`)")
        if f.names_reader:
            by = "the Anserini topic reader it names (Java)"
        elif f.reader is not None:
            by = f"Anserini's `{f.reader}TopicReader` (Java)"
        else:
            by = "ir_datasets" if f.ir_datasets else "the harness (no Java: `harness validate` checks its ids)"
        if f.judged_split:
            by += "; with qrels, only the queries they judge"
        use = (
            "`knn`"
            if f.dense
            else "`impact`"
            if f.weights
            else "every model but `knn` (`impact`: as pretokenized terms)"
        )
        rows.append(f"| {name} | {by} | {use} |")
    return "\n".join(rows)


def demo_output() -> str:
    """What `make demo` prints (`harness run configs/demo.yaml`), through the verb the command line
    runs (harness.verbs.run.run: runs by their names, as the CLI shows them), into a temporary
    folder, its index too (`make lint` and the tests leave nothing in the checkout's indexes/);
    trimmed to the means table."""
    from harness.verbs.run import load, run

    cfg = load(REPO / "configs" / "demo.yaml")
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the demo's sweep warning: `make demo` shows it, the block does not
        md = run(dataclasses.replace(cfg, output=Path(tmp) / "demo", index_path=Path(tmp) / "index")).summary_md
    return "```\n$ make demo\n...\n" + "\n".join(means_table(md)) + "\n...\nreport written to reports/demo\n```"


def _study_summary(sets: tuple[str, ...] = ()) -> list[str]:
    """The lines `harness run configs/study.yaml` (with ``--set`` ``sets``) prints, through the
    study verb the command line runs, into a temporary folder (its indexes too)."""
    from harness.verbs import study
    from harness.verbs.run import load

    loaded = load(REPO / "configs" / "study.yaml", sets=sets)
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmp = Path(tmp)
        collections = {
            name: dataclasses.replace(cfg, index_path=tmp / "indexes" / name)
            for name, cfg in loaded.collections.items()
        }
        md = study.run(dataclasses.replace(loaded, output=tmp / "study", collections=collections)).summary_md
    return md.splitlines()


def _table(lines: list[str], heading: str, after: int = 0) -> list[str]:
    """The heading ``heading`` (the first after line ``after``) and the table under it."""
    start = lines.index(heading, after)
    end = next(i for i in range(start + 2, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def study_output() -> str:
    """What `harness run configs/study.yaml` prints, trimmed to the table across collections of one measure."""
    lines = _study_summary()
    return (
        "```\n$ .venv/bin/harness run configs/study.yaml\n...\n"
        + "\n".join(_table(lines, "### nDCG@10"))
        + "\n...\n```"
    )


# docs/experiments.md, *Meta-analysis in a study*: the shipped study with a third run, compared with bm25 on AP
META_SETS = (
    "runs=[{bm25: {k1: 0.9, b: 0.4}}, {dirichlet: {mu: 1000}}, {jm: {lambda: 0.7}}]",
    "compare={baseline: bm25, measures: [AP]}",
)


def meta_output() -> str:
    """What `harness run configs/study.yaml --set ...` (:data:`META_SETS`) prints: the
    meta-analysis's warnings and its table."""
    lines = _study_summary(META_SETS)
    command = " ".join([".venv/bin/harness run configs/study.yaml", *(f"--set '{s}'" for s in META_SETS)])
    warned = [line for line in lines if line.startswith("- meta-analysis of ")]
    table = _table(lines, "### AP", lines.index("## Meta-analysis across collections"))
    body = ["## Warnings", "", *warned, "...", "## Meta-analysis across collections", "...", *table]
    return f"```\n$ {command}\n...\n" + "\n".join(body) + "\n...\n```"


WORKED_EXAMPLE = REPO / "docs" / "reproduce.md"


@functools.cache
def worked_example() -> dict[str, str]:
    """What the commands of docs/reproduce.md's worked example print: the page's own ```sh block
    (the last before its generated blocks), run as written (`.venv/bin/harness ...`, from the
    repository) in a temporary copy of the demo's configs and data with an indexes/ folder of its
    own; {verb: stdout} of its `harness compare` and `harness reproduce`, and under "metadata" the
    ir_metadata file of the reproduction's advanced run (its `--rep-advanced`)."""
    from harness.formats.ir_metadata import yml_name

    text = WORKED_EXAMPLE.read_text(encoding="utf-8")
    block = re.findall(r"```sh\n(.*?)```", text[: text.index("<!-- BEGIN reproduce-metadata -->")], re.S)[-1]
    commands = [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for sub in ("configs", "corpora", "topics", "qrels"):
            shutil.copytree(REPO / sub, tmp / sub)
        (tmp / "indexes").mkdir()
        (tmp / ".venv").symlink_to(REPO / ".venv")
        for command in commands:
            r = subprocess.run(["bash", "-c", command], cwd=tmp, env=env, capture_output=True, text=True)
            if r.returncode:
                raise SystemExit(f"{WORKED_EXAMPLE.name}: {command}: exit {r.returncode}\n{r.stderr}")
            out[command.split()[1]] = r.stdout
        rep_advanced = commands[-1].split("--rep-advanced ")[1].split()[0]
        out["metadata"] = (tmp / rep_advanced).with_name(yml_name(rep_advanced)).read_text(encoding="utf-8")
    return out


def reproduce_metadata() -> str:
    """The worked example's reproduced advanced run, its ir_metadata from `method:` to `data:`
    (its method and actor: the rest names the machine and the temporary folder)."""
    text = worked_example()["metadata"]
    return "```yaml\n" + text[text.index("method:\n") : text.index("data:\n")].rstrip("\n") + "\n```"


def reproduce_compare() -> str:
    """The worked example's `harness compare`: its table (the original's effect), header included."""
    lines = worked_example()["compare"].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("measure "))
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return "```\n" + "\n".join(lines[start:end]) + "\n```"


def reproduce_output() -> str:
    """The worked example's `harness reproduce`: all it prints."""
    return "```\n" + worked_example()["reproduce"].rstrip("\n") + "\n```"


def means_table(summary: str) -> list[str]:
    """The means table of a summary (what `harness run` prints): its first table, header included."""
    table = [line for line in summary.splitlines() if line.startswith("|")]
    end = next(i for i, line in enumerate(table[2:], start=2) if not line.startswith("| ") or "topics_in_run" in line)
    return table[:end]


SECTIONS = {
    "config-reference": config_reference,
    "measures": measures,
    "measure-aliases": measure_aliases,
    "audit": audit,
    "fusion-methods": fusion_methods,
    "formats": formats,
    "demo-output": demo_output,
    "study-output": study_output,
    "reproduce-metadata": reproduce_metadata,
    "reproduce-compare": reproduce_compare,
    "reproduce-output": reproduce_output,
    "meta-output": meta_output,
}


PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def render(pages: dict[Path, str], only: set[str] | None = None) -> dict[Path, str]:
    """The pages with every generated block (or those in ``only``) made anew."""
    out = dict(pages)
    for name, make in SECTIONS.items():
        if only and name not in only:
            continue
        begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
        pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
        where = [p for p, text in out.items() if pattern.search(text)]
        if len(where) != 1:
            raise SystemExit(f"{begin} ... {end}: expected in exactly one page, found in {len(where)}")
        body = make()
        out[where[0]] = pattern.sub(lambda m, b=begin, x=body, e=end: f"{b}\n{x}\n{e}", out[where[0]])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    old = {p: p.read_text(encoding="utf-8") for p in PAGES}
    new = render(old)
    stale = [p for p in PAGES if new[p] != old[p]]
    if args.check:
        for p in stale:
            print(f"{p.relative_to(REPO)} is stale: run .venv/bin/python scripts/gen_docs.py", file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        p.write_text(new[p], encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
