"""The commands that take files: evaluate and compare run files, the course lab, doctor."""

from __future__ import annotations

import time
from pathlib import Path

from harness.cli.experiment import _log
from harness.errors import DataError, EngineError


def _fields(path: str) -> int | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    return len(line.split())
    except OSError:
        return None
    return None


def _read_run_and_qrels(run_path: str, qrels_path: str, duplicates: str = "error"):
    from harness.formats.qrels import read_qrels
    from harness.formats.runs import read_run

    for path, what in ((run_path, "run"), (qrels_path, "qrels")):
        if not Path(path).is_file():
            raise DataError(path, f"{what} file not found")
    if _fields(run_path) == 4 and _fields(qrels_path) == 6:
        raise DataError(
            run_path,
            "this looks like qrels and the qrels file like a run: the order is RUN QRELS (trec_eval's is qrels first)",
        )
    run, qrels = read_run(run_path, duplicates=duplicates), read_qrels(qrels_path)
    _check_qrels(qrels, qrels_path, [(run_path, run)])
    return run, qrels


def _check_qrels(qrels, qrels_path, runs) -> None:
    """An empty qrels file is an error; runs sharing no doc id with the qrels get a warning."""
    from harness.errors import warn

    if not qrels.topics():
        raise DataError(qrels_path, "the qrels file has no judgments: nothing could be evaluated")
    judged = None
    for path, run in runs:
        if not len(run):
            continue
        if judged is None:
            judged = qrels.docids.tolist()
        if not _shares_an_id(run, judged):
            warn(
                f"{path}: none of its document ids is judged in {qrels_path}: every score will be 0. "
                "Do the ids match (file names with or without an extension, a prefix)?"
            )


def _shares_an_id(run, judged: list) -> bool:
    """Whether any of the run's doc ids is in ``judged``. Almost always one of its first hits
    is: those are looked at first, and the rest only when none is, in blocks (no list of every
    id at once). np.unique and intersect1d over a 10M-line run's ids took 6.5 s of an
    8.9-second evaluation (numpy 2.5)."""
    head = 1 << 14
    if not set(run.docids[:head].tolist()).isdisjoint(judged):
        return True
    judged_set, step = set(judged), 1 << 16
    return any(not judged_set.isdisjoint(run.docids[lo : lo + step].tolist()) for lo in range(head, len(run), step))


def _measures(texts: list[str]):
    from harness.metrics import parse_measure

    out = []
    for text in texts:
        try:
            m = parse_measure(text)
        except ValueError as e:
            raise DataError("-m", str(e)) from None
        if m not in out:
            out.append(m)
    return out


def _eval_policy(args):
    from harness.metrics import EvalPolicy

    return EvalPolicy(ties=args.ties, missing_topics=args.missing_topics)


def cmd_evaluate(args) -> int:
    from harness.metrics import evaluate
    from harness.metrics.evaluate import SUMMED
    from harness.progress import Progress

    measures = _measures(args.measures)
    policy = _eval_policy(args)
    with Progress(3, "reading run") as bar:
        run_path, qrels_path = args.run, args.qrels
        run, qrels = _read_run_and_qrels(run_path, qrels_path, args.duplicates)
        bar.update(2, label=f"evaluating {len(measures)} measures")
        ev = evaluate(run, qrels, measures, policy)
        bar.update()
    names = [str(m) for m in measures]
    # As trec_eval: counts print as integers and their "all" line is the sum over topics.
    counts = {str(m) for m in measures if m.name in SUMMED}
    fmt = lambda name, v: f"{v:.0f}" if name in counts else f"{v:.4f}"  # noqa: E731
    if args.per_topic:
        for topic in sorted(ev.topics):
            for name in names:
                print(f"{name}\t{topic}\t{fmt(name, ev.per_topic[name][topic])}")
    summary = ev.summary
    for name in names:
        print(f"{name}\tall\t{fmt(name, summary[name])}")
    a = ev.audit
    _log(
        f"# {a['topics_evaluated']} topics evaluated ({a['judged_missing_from_run']} judged topics missing "
        f"from the run, {a['run_topics_without_judgments']} run topics without judgments); policy: {policy}"
    )
    return 0


def _compare_inputs(args):
    """(names, paths) of the runs, baseline first among equals, and the baseline's name."""
    paths = [Path(p) for p in args.runs]
    seen = set()
    for p in paths:
        if p.resolve() in seen:
            raise DataError(str(p), "run file given twice")
        seen.add(p.resolve())
    names = [p.stem for p in paths]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]  # same stem twice: name runs by their path
    base = args.baseline
    matches = [
        n
        for n, p in zip(names, paths)
        if base in (n, str(p)) or (Path(base).exists() and p.exists() and Path(base).resolve() == p.resolve())
    ]
    if matches:
        baseline = matches[0]
    elif Path(base).is_file():
        paths.insert(0, Path(base))
        baseline = Path(base).stem if Path(base).stem not in names else base
        names.insert(0, baseline)
    else:
        raise DataError("--baseline", f"{base!r} is neither one of the runs ({', '.join(names)}) nor a run file")
    if len(paths) < 2:
        raise DataError("compare", "needs at least one run besides the baseline")
    return names, paths, baseline


def cmd_compare(args) -> int:
    import numpy as np

    from harness.formats.qrels import read_qrels
    from harness.formats.runs import read_run
    from harness.metrics import evaluate
    from harness.progress import Progress
    from harness.stats import StatsPolicy, compare, pairs_against

    measures = _measures(args.measures)
    names, paths, baseline = _compare_inputs(args)
    for p in [*paths, Path(args.qrels)]:
        if not p.is_file():
            raise DataError(str(p), "file not found")
    try:
        stats_policy = StatsPolicy(
            test=args.test,
            correction=args.correction,
            family=args.family,
            alpha=args.alpha,
            permutations=args.permutations,
            seed=args.seed,
        )
    except ValueError as e:
        raise DataError("compare", str(e)) from None
    policy = _eval_policy(args)
    qrels = read_qrels(args.qrels)
    _check_qrels(qrels, args.qrels, [])
    evaluations = {}
    with Progress(len(paths) + 1, "evaluating runs", unit="steps") as bar:
        for name, path in zip(names, paths):
            run = read_run(path, duplicates=args.duplicates)
            _check_qrels(qrels, args.qrels, [(path, run)])
            evaluations[name] = evaluate(run, qrels, measures, policy)
            bar.update()
        common = [
            t
            for t in evaluations[baseline].topics
            if all(t in ev.per_topic[str(measures[0])] for ev in evaluations.values())
        ]
        if not common:
            raise DataError(args.qrels, "no topic is evaluated for every run")
        scores = {
            n: {str(m): np.array([ev.per_topic[str(m)][t] for t in common]) for m in measures}
            for n, ev in evaluations.items()
        }
        bar.update(label="testing")
        rows = compare(scores, pairs_against(baseline, names), [str(m) for m in measures], stats_policy)
    dropped = max(len(ev.topics) for ev in evaluations.values()) - len(common)
    print(
        f"baseline: {baseline}; {len(common)} topics"
        + (f" ({dropped} not evaluated for every run left out)" if dropped else "")
    )
    print(f"statistics: {stats_policy}")
    print(f"evaluation: {policy}")
    header = [
        "measure",
        "run",
        "mean",
        "baseline",
        "diff",
        f"{stats_policy.ci_level:.0%} CI",
        "p",
        f"p ({args.correction})",
        "W/T/L",
        "",
    ]
    table = [header]
    for c in rows:
        table.append(
            [
                c.measure,
                c.run,
                f"{c.mean_run:.4f}",
                f"{c.mean_baseline:.4f}",
                f"{c.diff:+.4f}",
                f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]",
                f"{c.p:.4f}",
                f"{c.p_corrected:.4f}",
                f"{c.wins}/{c.ties}/{c.losses}",
                "*" if c.reject else "",
            ]
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    print(f"* p ({args.correction}) < alpha = {stats_policy.alpha:g}")
    return 0


def cmd_lab(args) -> int:
    from harness.lab import run_lab

    if getattr(args, "judge", None):
        from harness.judge.store import QrelsStore

        QrelsStore(args.judge)  # a bad qrels file is reported before anything runs
    code = run_lab(args)
    if code == 0 and getattr(args, "judge", None):
        from harness.cli.judge import lab_judge

        return lab_judge(args)
    return code


def cmd_doctor(args) -> int:
    from harness.engine import lucene

    t = time.perf_counter()
    try:
        lucene.jclass("harness.BatchSearcher")
        jvm = f"started in {time.perf_counter() - t:.2f} s"
    except EngineError as e:
        jvm = f"FAILED: {e}"
    for k, v in lucene.versions(jvm=lucene.started()).items():
        print(f"{k:10} {v}")
    print(f"{'jvm':10} {jvm}")
    return 0 if lucene.started() else 3


# ------------------------------------------------------------------------------ the parser
