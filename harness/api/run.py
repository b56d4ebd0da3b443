"""``harness.run(config)``: an experiment exactly as ``harness run`` does it, as DataFrames; a
study (a config of several collections) as a :class:`Study`: each collection's :class:`Result`
and the tables across collections."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from harness import lazy
from harness.api.frames import long_per_topic, means_frame, run_frame
from harness.events import ignore, to_stderr
from harness.policies import DEFAULT_IR_METADATA, format_p
from harness.verbs import run as verb
from harness.verbs import study as study_verb
from harness.verbs.compare import ANOVA_FIELDS, COMPARISON_FIELDS, POWER_FIELDS

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["run", "Result", "Study"]

CHECK_COLUMNS = ["run", "measure", "expected", "actual", "tolerance", "okish_tolerance", "status", "ok"]


class _Runs(Mapping):
    """run name -> DataFrame (qid, docno, rank, score), built on first access."""

    def __init__(self, results):
        self._results = {r.name: r for r in results}
        # a run may also be asked for by its spec, as the config and the manifest write it
        self._specs = {str(r.spec): r.name for r in results}
        self._frames: dict[str, DataFrame] = {}

    def __getitem__(self, name: str) -> DataFrame:
        name = self._specs.get(name, name)
        if name not in self._results:
            raise KeyError(f"no run {name!r}; runs: {', '.join(self._results)}")
        if name not in self._frames:
            self._frames[name] = run_frame(self._results[name].run)
        return self._frames[name]

    def __iter__(self):
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def __repr__(self) -> str:
        return f"<runs: {', '.join(self._results)}>"


class Result:
    """What ``harness.run`` returns. The numbers are the report's (``output`` holds the same
    files ``harness run`` writes):

    - ``means``: one row per run (index ``run``), one column per measure of the config;
    - ``per_topic``: long, ``run``, ``qid``, ``measure``, ``value`` (the config's measures);
    - ``comparisons``: one row per (measure, baseline, run), the columns of ``comparisons.csv``
      (empty without ``compare:``; ``attrs["policy"]`` states the policy);
    - ``groups``: with every pair tested (``baseline: all-pairs``, a many-system test), one row per
      (measure, run): its mean, its ``letters`` (the compact letter display) and whether it is
      ``indistinguishable_from_best`` (the best included); ``anova``: the rows of ``anova.csv``
      (``compare.anova``); ``power``: the rows of ``power.csv`` (``compare.power``); empty otherwise;
    - ``runs[name]``: ``qid``, ``docno``, ``rank``, ``score``, as in its file under ``runs/``
      (named after the run's name without spaces: ``manifest["runs"]`` maps each name to its file);
    - ``topics``: ``qid``, ``query``; ``checks``: the ``expect:`` checks, each ``status`` OK, OK-ish
      (within ``okish_tolerance``: a warning) or FAIL, and ``ok`` (not FAIL);
    - ``manifest``: ``manifest.json`` as a dict; ``output``: the report folder;
    - ``experiment``: the underlying :class:`harness.experiment.result.ExperimentResult`.
    """

    def __init__(self, experiment, output: Path):
        self.experiment = experiment
        self.output = Path(output)
        cfg = experiment.config
        self.name = cfg.name
        self.measures = list(cfg.measure_names)
        self.index = experiment.index.path
        self.runs = _Runs(experiment.runs)
        self.topics = pd.DataFrame(experiment.topics, columns=["qid", "query"])
        self.manifest = json.loads((self.output / "manifest.json").read_text(encoding="utf-8"))
        evs = experiment.evaluations
        names = [r.name for r in experiment.runs]
        self.means = means_frame({n: evs[n].means for n in names}, self.measures) if evs else _no_means(names)
        self.per_topic = (
            pd.concat([long_per_topic(n, evs[n], self.measures) for n in names], ignore_index=True)
            if evs
            else pd.DataFrame(columns=["run", "qid", "measure", "value"])
        )
        rows = experiment.comparisons.rows if experiment.comparisons is not None else ()
        self.comparisons = pd.DataFrame(
            [{f: getattr(r, f) for f in COMPARISON_FIELDS} for r in rows], columns=list(COMPARISON_FIELDS)
        )
        if experiment.comparisons is not None:
            self.comparisons.attrs = {"policy": str(experiment.comparisons.policy)}
        c = experiment.comparisons
        self.groups = pd.DataFrame(
            [
                {
                    "measure": g.measure,
                    "run": run,
                    "mean": mean,
                    "letters": None if g.letters is None else g.letters[i],
                    "indistinguishable_from_best": run in g.indistinguishable,
                }
                for g in (c.groups if c is not None else ())
                for i, (run, mean) in enumerate(zip(g.runs, g.means))
            ],
            columns=["measure", "run", "mean", "letters", "indistinguishable_from_best"],
        )
        self.anova = pd.DataFrame(
            [
                {"measure": m, **{f: getattr(row, f) for f in ANOVA_FIELDS}}
                for m, a in (c.anova.items() if c is not None else ())
                for row in a.rows
            ],
            columns=["measure", *ANOVA_FIELDS],
        )
        self.power = pd.DataFrame(
            [{f: getattr(row, f) for f in POWER_FIELDS} for row in (c.power if c is not None else ())],
            columns=list(POWER_FIELDS),
        )
        self.checks = pd.DataFrame(
            [
                (c.run, c.measure, c.expected, c.actual, c.tolerance, c.okish_margin, c.status, c.ok)
                for c in experiment.checks
            ],
            columns=CHECK_COLUMNS,
        )

    @property
    def ok(self) -> bool:
        """False when an ``expect:`` check failed (``harness run`` would exit 1)."""
        return not self.experiment.failed_checks

    def __repr__(self) -> str:
        return f"<harness.Result {self.name}: {len(self.runs)} run(s), report in {self.output}>\n{self.means.round(4)}"

    def _repr_html_(self) -> str:
        parts = [f"<p><b>{html.escape(self.name)}</b>: {len(self.runs)} run(s), {len(self.topics)} topics; "]
        parts.append(f"report in <code>{html.escape(str(self.output))}</code></p>")
        parts.append(self.means.to_html(float_format=lambda x: f"{x:.4f}", na_rep="", escape=True))
        if len(self.comparisons):
            shown = self.comparisons[["measure", "baseline", "run", "diff", "p", "p_corrected", "reject"]]
            parts.append(f"<p>{html.escape(self.comparisons.attrs.get('policy', ''))}</p>")
            p_columns = {c: format_p for c in ("p", "p_corrected")}  # the report's rule (harness.policies)
            parts.append(
                shown.to_html(index=False, float_format=lambda x: f"{x:.4g}", formatters=p_columns, escape=True)
            )
        failed = self.experiment.failed_checks
        if failed:
            parts.append("<pre>" + html.escape("\n".join(str(c) for c in failed)) + "</pre>")
        return "\n".join(parts)


class Study:
    """What ``harness.run`` returns for a study (a config with ``collections:``). The numbers are
    the study's report's (``output`` holds the files ``harness run`` writes):

    - ``collections[name]``: each collection's :class:`Result`, as ``harness.run`` of a config of
      it alone returns it (its report in ``output/collections/NAME``); a failed one is missing;
    - ``failed``: collection name -> why it failed (its error's message);
    - ``tables[name]``: each table across collections as its CSV holds it (``tables["collections"]``:
      ``measure``, ``run``, one column per collection, ``mean``: collections.csv); ``means`` is it;
      ``meta_analysis`` is ``tables["meta_analysis"]`` (meta_analysis.csv: ``measure``, ``baseline``,
      ``run``, ``collection`` (a collection's name, or ``fixed`` / ``random`` on the pooled rows),
      ``effect``, ``variance``, ``ci_low``, ``ci_high``, and ``Q``, ``I2``, ``tau2`` on the pooled
      rows), empty without a meta-analysis (no ``compare:``, or ``compare.meta: false``);
    - ``checks``: every collection's ``expect:`` checks, ``collection`` first, then Result.checks'
      columns; ``manifest``: the study's manifest.json; ``result``: the underlying
      :class:`harness.experiment.study.StudyResult`.
    """

    def __init__(self, result, output: Path):
        self.result = result
        self.output = Path(output)
        self.name = result.study.name
        self.collections = {
            name: Result(r, self.output / result.study.folder(name)) for name, r in result.results.items()
        }
        self.failed = {name: f.message for name, f in result.failures.items()}
        self.tables = {t.name: pd.DataFrame(list(t.rows), columns=list(t.columns)) for t in result.tables}
        self.manifest = json.loads((self.output / "manifest.json").read_text(encoding="utf-8"))
        self.checks = pd.DataFrame(
            [
                (name, c.run, c.measure, c.expected, c.actual, c.tolerance, c.okish_margin, c.status, c.ok)
                for name, c in result.checks
            ],
            columns=["collection", *CHECK_COLUMNS],
        )

    @property
    def means(self) -> DataFrame:
        """The runs x collections table of each measure, with the mean over collections (collections.csv)."""
        return self.tables.get("collections", pd.DataFrame(columns=["measure", "run", "mean"]))

    @property
    def meta_analysis(self) -> DataFrame:
        """Each compared pair's meta-analysis across the collections (meta_analysis.csv)."""
        return self.tables.get(study_verb.META_TABLE, pd.DataFrame(columns=list(study_verb.META_COLUMNS)))

    @property
    def ok(self) -> bool:
        """False when a collection failed or an ``expect:`` check failed (``harness run`` would exit non-zero)."""
        return not self.failed and not self.result.failed_checks

    def __repr__(self) -> str:
        failed = f", {len(self.failed)} failed ({', '.join(self.failed)})" if self.failed else ""
        return (
            f"<harness.Study {self.name}: {len(self.collections)} collection(s){failed}, report in {self.output}>\n"
            f"{self.means.round(4)}"
        )


def _no_means(names) -> DataFrame:
    df = pd.DataFrame(index=names)
    df.index.name = "run"
    return df


def run(
    config,
    *,
    output=None,
    overrides: Mapping | None = None,
    replace: bool = False,
    verbose: bool = False,
    ir_metadata: str = DEFAULT_IR_METADATA,
) -> Result | Study:
    """Run an experiment exactly as ``harness run CONFIG`` does — index (or reuse), search (or
    reuse the cached runs), evaluate, compare, write the report to the config's ``output`` — and
    return its tables as a :class:`Result`.

    ``config`` is a path to a YAML file (its relative paths resolve against the file's folder,
    as on the command line), or the config itself as a YAML string or a dict, whose relative
    paths resolve against the current directory (where the config would be if it were a file:
    indexes go to the nearest ``indexes/`` folder above it, as for a file there). A config is
    validated in full before anything runs (:class:`~harness.errors.ConfigError` lists every
    problem). Unmet ``expect:`` checks do not raise: see ``Result.ok`` and ``Result.checks``.

    ``output`` (``--output``) is the report folder instead of the config's, and ``overrides``
    (``--set``) replaces keys of the config, dotted, with Python values:
    ``harness.run("configs/demo.yaml", output="out", overrides={"depth": 100, "runs.0.bm25.k1": 1.2})``.
    Both are checked as the config's own keys are, and listed in ``Result.manifest["config"]``;
    a path among them is relative to the current folder.
    ``replace`` (``--replace``): the report folder may be one another experiment wrote (another
    config file, or another ``name`` for a dict or YAML text), refused otherwise; a folder
    holding files the harness did not write is refused either way.
    ``verbose`` prints the progress lines ``harness run`` prints to stderr. ``ir_metadata``
    (``--ir-metadata``): each run's ir_metadata written beside its file in the report's ``runs/``
    (``"yml"``, the default), at the file's top (``"inline"``, as repro_eval reads it), or not at
    all (``"none"``); docs/ir-metadata.md.

    A study (``collections:``, docs/experiments.md *Studies*) returns a :class:`Study`: each
    collection's Result by name and the tables across collections as DataFrames. A collection
    that fails does not raise: see ``Study.failed`` and ``Study.ok``.
    """
    cfg = verb.load(config, overrides=overrides, output=output, flags=False, replace=replace)
    on = to_stderr if verbose else ignore
    if study_verb.is_study(cfg):
        out = study_verb.run(cfg, on=on, ir_metadata=ir_metadata)
        return Study(out.result, out.output)
    done = verb.run(cfg, on=on, ir_metadata=ir_metadata)
    return Result(done.result, done.output)
