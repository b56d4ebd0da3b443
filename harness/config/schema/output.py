"""What an experiment writes and where it is computed: the `report:`, `ir_metadata:`, `output:`
and `execution:` keys of the schema."""

from __future__ import annotations

from harness.config.execution import ENGINES
from harness.config.keys import Key
from harness.policies import MAX_WORKERS

__all__ = ["REPORT", "IR_METADATA", "OUTPUT", "EXECUTION"]

REPORT = Key(
    "report",
    "section",
    "What report.html shows beyond the tables.",
    keys=(
        Key(
            "explorer_depth",
            "int",
            "Results per run shown for each topic in the report's topic explorer (0: no explorer).",
            default=20,
            minimum=0,
        ),
        Key(
            "explorer_topics",
            "int",
            "Topics shown in the topic explorer: beyond this many, those with the largest difference "
            "between the first two runs shown (either way), else the first ones.",
            default=250,
            minimum=1,
        ),
    ),
)

_URL = "URL of"
IR_METADATA = Key(
    "ir_metadata",
    "section",
    "Who made the runs and for what, written into each run's ir_metadata (ir-metadata.org's `actor` and "
    "`research goal`; docs/ir-metadata.md). The harness writes the rest itself: platform, implementation, "
    "method, data, and the research goal's evaluation (the measures and the `compare:` block).",
    keys=(
        Key(
            "actor",
            "section",
            "The experimenter who ran the experiment (ir_metadata's `actor`).",
            keys=(
                Key("name", "string", "Name of the experimenter."),
                Key(
                    "orcid",
                    "string",
                    "ORCID iD, e.g. 0000-0002-1825-0097.",
                    pattern=r"(https://orcid\.org/)?[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]",
                ),
                Key("team", "string", "Team the experimenter is part of (a shared task's team name)."),
                Key("fields", "strings", "Research fields, e.g. [ir, nlp]."),
                Key("mail", "string", "Mail address."),
                Key(
                    "role",
                    "choice",
                    "`experimenter`: an original experiment; `reproducer`: a reproduction of one.",
                    choices=("experimenter", "reproducer"),
                ),
                Key("degree", "string", "Academic degree: B.Sc., M.Sc., Ph.D."),
                Key("github", "string", f"{_URL} the experimenter's GitHub profile."),
                Key("twitter", "string", f"{_URL} the experimenter's Twitter profile."),
            ),
        ),
        Key(
            "research_goal",
            "section",
            "The study the runs are for (ir_metadata's `research goal`).",
            keys=(
                Key(
                    "venue",
                    "section",
                    "Where the study is published.",
                    keys=(
                        Key("name", "string", "Acronym or name of the venue: SIGIR, ECIR, CLEF, TREC, ..."),
                        Key("year", "int", "Year of publication.", minimum=1900, maximum=9999),
                    ),
                ),
                Key(
                    "publication",
                    "section",
                    "The publication of the study.",
                    keys=(
                        Key("dblp", "string", f"{_URL} the publication in dblp."),
                        Key("doi", "string", "DOI of the publication."),
                        Key("arxiv", "string", f"{_URL} the publication on arXiv."),
                        Key("url", "string", f"{_URL} the publication elsewhere."),
                        Key("abstract", "string", "Abstract of the publication."),
                    ),
                ),
            ),
        ),
    ),
)

OUTPUT = Key("output", "path", "Folder for runs and reports (created if missing).", required=True, path_kind="dir")

EXECUTION = Key(
    "execution",
    "section",
    "Where indexing and searching run (docs/deployment.md *Clusters*); runs, metrics and caches do not "
    "depend on it. `harness run --scheduler ADDRESS` / `--workers N` set `engine: dask` and that cluster "
    "(before the config is checked, as `--set` would); its other keys here hold.",
    keys=(
        Key(
            "engine",
            "choice",
            "`local`: this process; `dask`: Dask workers (a running scheduler, or a "
            "LocalCluster the harness starts and stops).",
            default="local",
            choices=ENGINES,
        ),
        Key(
            "scheduler",
            "scheduler",
            "Address of a running Dask scheduler (dask only; not with `workers`).",
        ),
        Key(
            "workers",
            "int",
            "Start a LocalCluster of this many single-threaded worker processes (dask only; not with `scheduler`).",
            minimum=1,
            maximum=MAX_WORKERS,
            default_text="the number of CPU cores, when no `scheduler` is given",
        ),
        Key(
            "index_shards",
            "int",
            "Dask: build the index as this many corpus shards on the workers, merged into one "
            "(Lucene addIndexes); 1 builds it in one piece on one worker. A vectors index is always "
            "built in one piece (merging rebuilds an HNSW graph, which would differ from Anserini's).",
            minimum=1,
            maximum=MAX_WORKERS,
            default_text="the workers' thread count",
        ),
        Key(
            "topics_per_task",
            "int",
            "Dask: topics searched by one task (one run setting, one topic shard).",
            minimum=1,
            default_text="at least 4 tasks per worker thread over all runs",
        ),
        Key(
            "timeout",
            "number",
            "Dask: seconds to wait for the scheduler, and for its first worker, before failing.",
            default=10.0,
            minimum=0,
            exclusive=True,
        ),
    ),
)
