"""The plan: what an experiment will read, build and reuse, decided by content hashes before any
work starts (and without Java). The index is reused when its fingerprint matches; a run is reused
when the hash of everything that determines it names a run file already cached beside the index.

An index built elsewhere (a config without `collection`) is fingerprinted by its segment files
and never written to: its runs are cached under ``indexes/existing-<fingerprint>/harness-runs``."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from harness.config import Config
from harness.config.paths import write_target_problems
from harness.engine.corpus import Corpus
from harness.engine.existing import segment_fingerprint
from harness.engine.index import IndexOptions, index_fingerprint
from harness.engine.manifest import open_manifest
from harness.errors import ConfigError, ConfigProblem, DataError
from harness.policies import DEFAULT_LANGUAGE
from harness.specs.similarity import Similarity

__all__ = ["Plan", "plan", "indexes_root", "RUN_CACHE"]

# The folder of an index's run cache (harness.experiment.store names the files in it).
RUN_CACHE = "harness-runs"


@dataclass(frozen=True)
class Plan:
    config: Config
    corpus: Corpus | None  # None for an existing index
    options: IndexOptions
    index_path: Path
    fingerprint: str
    index_exists: bool
    existing: bool = False  # an index built elsewhere, only read
    run_cache: Path | None = None  # where run files are cached
    # The index with exact document lengths beside this one, for the runs that read them
    # (bm25 accurate=true; IndexOptions.lengths): built from the same collection, cached alike.
    exact: Plan | None = None

    def for_run(self, sim: Similarity) -> Plan:
        """The plan of the index ``sim`` is searched on."""
        return self.exact if sim.lengths == "exact" and self.exact is not None else self

    @property
    def runs_folder(self) -> Path:
        return self.run_cache if self.run_cache is not None else self.index_path / RUN_CACHE


def indexes_root(config_source: Path) -> Path:
    """Where indexes go when the config names no path: $HARNESS_INDEXES, else the nearest
    `indexes/` folder above the config (the repository's top-level one), else one beside it."""
    env = os.environ.get("HARNESS_INDEXES")
    if env:
        return Path(env).resolve()
    for parent in config_source.resolve().parents:
        if (parent / "indexes").is_dir():
            return parent / "indexes"
    return config_source.resolve().parent / "indexes"


def plan(cfg: Config) -> Plan:
    options = IndexOptions(stemmer=cfg.stemmer, stopwords=cfg.stopwords, language=cfg.language)
    exact = any(sim.lengths == "exact" for sim in cfg.runs)
    if cfg.collection_path is None:
        assert cfg.index_path is not None  # the config checks: without a collection, an index to read
        if exact:
            raise DataError(
                cfg.source,
                "bm25 accurate=true reads exact document lengths, which the harness builds into an index of "
                "its own from the collection; this config names an index built elsewhere (no `collection`)",
            )
        fp = segment_fingerprint(cfg.index_path)
        # The queries' analyzer is the config's, so cached runs are keyed by it too (a run with
        # another stemmer was once served the cached run of the first). Anserini's default analyzer
        # keeps the key it had before, the segment fingerprint alone; a language keeps its own.
        analyzer = [f"language={options.language}"] if options.language != DEFAULT_LANGUAGE else []
        if options.language == DEFAULT_LANGUAGE:
            defaults = IndexOptions()
            analyzer += [
                f"{key}={getattr(options, key)}"
                for key in ("stemmer", "stopwords")
                if getattr(options, key) != getattr(defaults, key)
            ]
        if analyzer:
            fp = hashlib.sha256("\0".join([fp, *analyzer]).encode()).hexdigest()
        cache = indexes_root(cfg.source) / f"existing-{fp[:12]}" / RUN_CACHE
        return Plan(cfg, None, options, cfg.index_path, fp, True, existing=True, run_cache=cache)
    fields = cfg.search_fields  # a multifield beir corpus (engine.beir): its fields' weights
    assert cfg.collection_format is not None  # set with the collection (read from its files when not given)
    corpus = Corpus(cfg.collection_path, cfg.collection_format, fields=bool(fields))
    options = IndexOptions(stemmer=cfg.stemmer, stopwords=cfg.stopwords, language=cfg.language, fields=fields)
    if cfg.vectors is not None:
        if cfg.vectors == "hnsw":
            options = IndexOptions(vectors=cfg.vectors, quantize=cfg.quantize, M=cfg.M, efC=cfg.efC)
        else:  # flat: no graph
            options = IndexOptions(vectors=cfg.vectors, quantize=cfg.quantize)
    elif cfg.collection_format.weights:  # term weights: an impact index
        options = IndexOptions(impact=True)
    fp = index_fingerprint(corpus, options)
    if cfg.index_path is not None:
        path = cfg.index_path
    else:
        path = indexes_root(cfg.source) / f"{cfg.collection_path.stem or 'corpus'}-{fp[:12]}"
        _check_default_index(cfg, path)

    manifest = open_manifest(path)
    beside = None
    if exact:
        x_options = IndexOptions(
            stemmer=cfg.stemmer, stopwords=cfg.stopwords, lengths="exact", language=cfg.language, fields=fields
        )
        x_fp = index_fingerprint(corpus, x_options)
        if cfg.index_path is not None:
            x_path = cfg.index_path.with_name(cfg.index_path.name + ".exact-lengths")
        else:
            x_path = indexes_root(cfg.source) / f"{cfg.collection_path.stem or 'corpus'}-{x_fp[:12]}"
            _check_default_index(cfg, x_path)
        x_manifest = open_manifest(x_path)
        beside = Plan(
            cfg, corpus, x_options, x_path, x_fp, x_manifest is not None and x_manifest.get("fingerprint") == x_fp
        )
    return Plan(
        cfg, corpus, options, path, fp, manifest is not None and manifest.get("fingerprint") == fp, exact=beside
    )


def _check_default_index(cfg: Config, path: Path) -> None:
    """The default index folder gets the checks `index.path` gets at validation (config/paths.py)."""
    assert cfg.collection_path is not None  # a default index is a collection's
    inputs = {"config file": cfg.source, "collection": cfg.collection_path, "topics": cfg.topics_path}
    if cfg.qrels_path is not None:
        inputs["qrels"] = cfg.qrels_path
    problems = write_target_problems({"index": path, "output": cfg.output}, inputs, {"index": "index"})
    problems = [(k, m) for k, m in problems if k == "index"]  # the output's own: checked at load
    if problems:
        where = "the default index folder (set `index.path` or $HARNESS_INDEXES to choose another)"
        raise ConfigError(str(cfg.source), [ConfigProblem(where, m) for _, m in problems])
