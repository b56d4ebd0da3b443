"""The trec_eval verb: `harness trec_eval`, trec_eval 9.0.8's command line and output, on the
harness's readers (errors name the file and line) and its evaluation (harness.metrics).

What trec_eval does and this verb does the same way: judgments first, then the run; each
topic's documents re-sorted by score (held as a float32) descending, then doc id descending;
``-M`` keeps the first N of them, then ``-J`` drops those without a judgment; topics of the run
without judgments are skipped; the run id is the last line's; per-topic lines (``-q``) go topic
by topic in the order of their ids sorted as strings, each topic's measures in trec_eval's table
order, then the "all" lines (unless ``-n``). Measures: harness.metrics.trec_names (trec_eval's
names of the one measure table), harness.metrics.trec_eval (their computation)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import DataError
from harness.formats.ir_metadata import STRIP_HINT, starts_with_block
from harness.formats.named import read_user_qrels
from harness.formats.prefs import REL_INFO_FORMATS, JudgmentGroups, PrefsJudgments, read_prefs, read_qrels_jg
from harness.formats.qrels import judgments_named
from harness.formats.run_files import read_run_file
from harness.formats.topic_ids import diagnosis, match_topic_ids
from harness.metrics.evaluate import rank_labels
from harness.metrics.trec_eval import compute
from harness.metrics.trec_jg import GroupsData
from harness.metrics.trec_names import parse_requests
from harness.metrics.trec_output import Line, format_output
from harness.metrics.trec_prefs import PrefsData
from harness.metrics.trec_zscores import parse_zscores
from harness.policies import EvalPolicy

__all__ = ["TrecEvalOptions", "TrecEvalResult", "trec_eval"]

PathLike = str | os.PathLike


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's flags: -m (measures), -q, -c, -n (summary=False), -l, -M, -N, -J, -Z
    (``zscores``: the file of means and stddevs), -R (``rel_info``: the judgments' format,
    harness.formats.prefs.REL_INFO_FORMATS)."""

    measures: tuple[str, ...] = ()
    per_query: bool = False
    complete: bool = False
    summary: bool = True
    level: int = 1
    max_docs: int | None = None
    num_docs: int | None = None
    judged_only: bool = False
    zscores: PathLike | None = None
    rel_info: str = "qrels"


@dataclass(frozen=True)
class TrecEvalResult:
    topics: tuple[str, ...]  # the evaluated topics, in trec_eval's order
    lines: tuple[Line, ...] = ()  # in trec_eval's order
    options: TrecEvalOptions = field(default_factory=TrecEvalOptions)

    def text(self) -> list[str]:
        """The lines trec_eval prints, without their line breaks."""
        return self.output().split("\n")[:-1]

    def output(self) -> str:
        """What trec_eval prints: its lines, each ended by a line break."""
        o = self.options
        return format_output(list(self.topics), list(self.lines), o.per_query, o.summary, o.zscores is not None)


def _last_run_id(path: Path, block: int = 1 << 16) -> str:
    """The run id trec_eval reports: the sixth field of the file's last (non-blank) line, read
    backwards block by block until the line's start (a line may run past a block: words after
    the tag are allowed; the reader has bounded it to 1 MiB)."""
    with open(path, "rb") as f:
        pos = f.seek(0, os.SEEK_END)
        tail = b""
        while pos > 0:
            step = min(block, pos)
            pos -= step
            f.seek(pos)
            tail = (f.read(step) + tail).rstrip()  # trailing blank lines and spaces dropped as met
            if b"\n" in tail:
                break
    fields = tail.rsplit(b"\n", 1)[-1].split()
    return fields[5].decode("utf-8", errors="replace") if len(fields) >= 6 else ""


def trec_eval(qrels: PathLike, run: PathLike, options: TrecEvalOptions | None = None) -> TrecEvalResult:
    """Evaluate the ``run`` file against the ``qrels`` file (the judgments, in the format
    ``options.rel_info``) as trec_eval 9.0.8 does (its defaults without ``options``)."""
    options = options or TrecEvalOptions()
    if options.rel_info not in REL_INFO_FORMATS:
        raise DataError(
            "-R", f"trec_eval has no rel_info format {options.rel_info!r} (formats: {', '.join(REL_INFO_FORMATS)})"
        )
    try:
        requests = parse_requests(list(options.measures))
    except ValueError as e:
        raise DataError("-m", str(e)) from None
    _check_formats(requests, options)
    if options.level < 1:
        raise DataError("-l", f"the relevance level must be at least 1 (got {options.level})")
    if options.max_docs is not None and options.max_docs < 0:
        raise DataError("-M", f"the number of documents per topic must be positive (got {options.max_docs})")
    zscores = None
    if options.zscores is not None:
        zscores = parse_zscores(Path(options.zscores))
    if options.rel_info != "qrels":
        return _other_judgments(qrels, run, options, requests, zscores)
    q = read_user_qrels(qrels, beir=False)  # trec_eval's four fields, as trec_eval reads them
    r = _read_run(run)
    rl, _, zero = rank_labels(
        r, q, EvalPolicy(missing_topics="drop"), max_docs=options.max_docs, judged_only=options.judged_only
    )
    assert not zero.any()
    rl.num_docs = 0 if options.num_docs is None else options.num_docs  # trec_eval's default
    if not rl.topics:
        raise DataError(str(run), f"no topic of the run has judgments in {qrels}: nothing to evaluate{_two_ways(r, q)}")
    with judgments_named(str(qrels)):
        topics, lines = _compute(rl, requests, options, q, run, zscores)
    return TrecEvalResult(tuple(topics), tuple(lines), options)


def _read_run(run: PathLike):
    """The run as trec_eval 9.0.8 reads it. An ir_metadata block at its top (the harness's other
    readers skip it) is refused as trec_eval refuses it: it reads every line as fields, and the
    block's first line, ``# ir_metadata.start``, has two ("Malformed line 1"); trec_eval 10.0
    skips lines starting with ``#``, 9.0.8 does not (get_trec_results.c)."""
    if starts_with_block(run):
        raise DataError(
            str(run),
            "the run starts with an ir_metadata block, whose first line has 2 fields: trec_eval 9.0.8 reads '#' "
            "lines as lines of fields and stops there (Malformed line 1), and so does harness trec_eval. harness "
            f"evaluate skips the block; for trec_eval, strip it: {STRIP_HINT}",
            line=1,
        )
    return read_run_file(run)


def _two_ways(run, qrels) -> str:
    """The ids written two ways (harness.formats.topic_ids), said after trec_eval's own refusal."""
    two = diagnosis(match_topic_ids(run.topics(), qrels.topics()), "run")
    return f" (ids written two ways: {two})" if two else ""


def _compute(rl, requests, options: TrecEvalOptions, q, run: PathLike, zscores):
    return compute(
        rl,
        requests,
        level=options.level,
        complete=options.complete,
        judged_topics=len(q.topics()),
        num_rel_complete=int((q.labels > 0).sum()),
        runid=_last_run_id(Path(run)),
        zscores=zscores,
    )


_KIND = {"qrels": "qrels", "prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}
_ADVICE = {"qrels": "-m official or -m all_trec", "prefs": "-m all_prefs or -m prefs", "qrels_jg": "-m qrels_jg"}


def _check_formats(requests, options: TrecEvalOptions) -> None:
    """Each measure reads one kind of judgments; trec_eval stops on another ("Can't calculate
    measure"): refused by name here, before any file is read."""
    kind = _KIND[options.rel_info]
    wrong = [r.trec.name for r in requests if r.trec.rel_info not in ("any", kind)]
    if wrong:
        needs = {r.trec.rel_info for r in requests if r.trec.name in wrong}
        fmt = " or ".join(f"-R {k}" + (" (or -R qrels_prefs)" if k == "prefs" else "") for k in sorted(needs))
        given = "" if options.measures else " (the default, official)"
        raise DataError(
            "-m",
            f"{', '.join(wrong)}{given} need{'s' if len(wrong) == 1 else ''} {fmt} judgments, "
            f"not -R {options.rel_info}; with -R {options.rel_info}, use {_ADVICE[kind]}",
        )


def _other_judgments(qrels: PathLike, run: PathLike, options: TrecEvalOptions, requests, zscores) -> TrecEvalResult:
    """-R prefs, qrels_prefs or qrels_jg: the judgments' own reader and measures."""
    judgments: JudgmentGroups | PrefsJudgments
    if options.rel_info == "qrels_jg":
        judgments = read_qrels_jg(qrels)
    else:
        judgments = read_prefs(qrels, options.rel_info)
    r = _read_run(run)
    topics = [t for t in r.topics() if t in judgments.topics]
    if not topics:
        raise DataError(str(run), f"no topic of the run has judgments in {qrels}: nothing to evaluate")
    data: GroupsData | PrefsData
    if isinstance(judgments, JudgmentGroups):  # -R qrels_jg
        data = GroupsData(r, judgments, topics, options.max_docs, options.judged_only)
    else:
        data = PrefsData(r, judgments, topics, options.max_docs)
    topics, lines = compute(
        data,
        requests,
        level=options.level,
        complete=options.complete,
        judged_topics=len(judgments.topics),
        runid=_last_run_id(Path(run)),
        zscores=zscores,
    )
    return TrecEvalResult(tuple(topics), tuple(lines), options)
