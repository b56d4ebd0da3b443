"""Retrieval: runs of Anserini's exact semantics, at close to Lucene's own speed.

Every query is what Anserini's ``SimpleSearcher.search(text, k)`` runs — a bag-of-words query
(``BagOfWordsQueryGenerator``) through the index's analyzer, so text such as ``-dash``,
``/slip flow/``, ``?`` or quotes is just words; hits ordered by score descending, ties by
external doc id ascending (also across the depth cut-off); scores rounded to 4 decimals and
near-ties spread by 1e-6 steps (Anserini's ``ScoreTiesAdjusterReranker``). The work happens in
``harness/engine/java/BatchSearcher.java``; a whole batch of results crosses into Python as one byte
array, and Lucene docids become external ids through a table read once per index. Every batch
is timed in Java, each query and the whole (harness.engine.latency): ``timed_run`` and
``timed_arrays`` give the times with the results.

The one thing we add: where float32 cannot hold Anserini's 1e-6 step (scores >= 32) two
adjacent scores can still be equal. We lower such a score by one float64 ulp, so a run's
scores are strictly decreasing for tools that read scores as float64 (ranx, pandas; the change
is ~1e-14, far inside 1e-4). trec_eval reads a score into a float32 (``float sim``), where the
two are equal again: it re-sorts them by doc id descending, as it does Anserini's own run, and
the harness's evaluation does the same (harness.metrics.evaluate), so every number still equals
trec_eval's on the run file.
"""

from __future__ import annotations

import re

import numpy as np

from harness.engine import impact, lucene
from harness.engine.analysis import analyzer as make_analyzer
from harness.engine.index import IndexOptions
from harness.engine.latency import SearchTimes
from harness.engine.ties import strictly_decreasing
from harness.errors import DataError, EngineError, HarnessError
from harness.formats.columns import pad8
from harness.formats.hygiene import id_problem
from harness.formats.run import Run
from harness.specs.models import EXPANSIONS, MODELS, IndexKind
from harness.specs.similarity import Similarity

# Largest number of distinct terms in one query (topic lines are at most 1 MiB: fewer terms).
MAX_CLAUSES = 1 << 20
# What no id may hold besides "\n" (the separator of the id table): see harness.formats.hygiene.
_BAD_ID_CHAR = re.compile(r"[^\S\n]|[\x00-\x09\x0b-\x1f\x7f-\x9f]")

__all__ = [
    "Searcher",
    "strictly_decreasing",
    "unpack",
    "batch_arrays",
    "run_text_writer",
    "id_table",
    "run_from_arrays",
]


class Searcher:
    """Searches one index with any similarity; open it once, run many configurations."""

    def __init__(self, index_path, options: IndexOptions):
        self.path, self.options = str(index_path), options
        Batch = lucene.jclass("harness.BatchSearcher")
        self._similarities = lucene.jclass("harness.Similarities")  # the similarity factories
        try:
            # Lucene refuses a query of more than 1,024 clauses (one per distinct query term
            # here), and Anserini leaves that limit as it is, so a long query (a pasted
            # abstract, a relevance-feedback query) fails there. We raise the process-wide
            # limit instead: queries of <= 1,024 terms are unchanged, longer ones just run.
            IndexSearcher = lucene.jclass("org.apache.lucene.search.IndexSearcher")
            if IndexSearcher.getMaxClauseCount() < MAX_CLAUSES:
                IndexSearcher.setMaxClauseCount(MAX_CLAUSES)
            analyzer = make_analyzer(options)
            self._java = Batch(str(index_path), analyzer)
            if options.fields:  # a multifield index (engine.beir): every field, weighted
                weights = lucene.jclass("java.util.HashMap")()
                Float = lucene.jclass("java.lang.Float")
                for name, weight in options.fields:
                    weights.put(name, Float(float(weight)))
                self._java.setFields(weights)
            raw = self._java.externalIds().tostring()
            self._run_text = lucene.jclass("harness.RunText")  # resolved here, used by the run cache's writer thread
        except HarnessError:
            raise
        except Exception as e:
            raise EngineError(f"cannot open index {index_path}: {e}") from e
        self._id_bytes: np.ndarray | None = None  # the ids as a NUL-padded S array, made on first search_run
        self._ids_raw = raw  # the same ids as Java gave them, each followed by "\n" (RunText)
        text = raw.decode("utf-8")
        self.ids = np.array(text.split("\n")[:-1], dtype=object)
        if len(self.ids) != self._java.maxDoc() or _BAD_ID_CHAR.search(text):
            # One pass over all ids: a run file could not hold (or read back) such an id.
            for d in self.ids.tolist():
                if (why := id_problem(d)) is not None:
                    raise DataError(
                        index_path, f"the collection has a document id {d[:60]!r} that {why}; fix the collection"
                    )
            raise DataError(index_path, "a document id contains a line break; fix the collection")
        if len(set(self.ids.tolist())) != len(self.ids):
            # A collection that repeats a doc id would put one document twice into a ranking.
            seen, dup = set(), None
            for d in self.ids.tolist():
                if d in seen:
                    dup = d
                    break
                seen.add(d)
            raise DataError(
                index_path, f"doc id {dup!r} occurs more than once in the indexed collection; doc ids must be unique"
            )
        # Tie order = ascending external id in UTF-8 byte order (Lucene's STRING_VAL order);
        # Python compares str by code point, which is the same order.
        ranks = np.empty(len(self.ids), dtype=np.int64)
        ranks[sorted(range(len(self.ids)), key=self.ids.__getitem__)] = np.arange(len(self.ids))
        self._java.setIdRanks(ranks.tolist())

    def _check_lengths(self, sim: Similarity) -> None:
        if sim.lengths != self.options.lengths:
            # Lucene's similarities decode one-byte norms, accurate BM25 reads exact lengths: on
            # the other kind of index either would score with meaningless document lengths.
            raise DataError(
                self.path,
                f"{sim} reads {'exact document lengths' if sim.lengths == 'exact' else 'Lucene length norms'}, "
                f"and this index stores {'exact lengths' if self.options.lengths == 'exact' else 'Lucene length norms'}"
                " (its harness-index.json's options.lengths). A config builds the index each run needs "
                "beside the other: run bm25 accurate=true from a config",
            )

    def _similarity(self, sim: Similarity):
        """The Lucene similarity of ``sim``: the factory of Similarities.java its model's registry
        entry names, with the arguments it declares (harness.specs.models)."""
        model = MODELS.get(sim.model)
        if model is None or model.java is None:
            raise EngineError(f"no Lucene similarity for {sim}")
        call = model.java
        return getattr(self._similarities, call.method_for(sim.params))(*call.arguments(model.params, sim.params))

    def _reranker(self, sim: Similarity):
        """(Anserini reranker, depth of the first search: None for the run's own) of ``sim``'s
        expansion, built by the BatchSearcher method its registry entry names; or (None, 0)."""
        if sim.expansion is None:
            return None, 0
        expansion = EXPANSIONS.get(sim.expansion)
        if expansion is None:
            raise EngineError(f"no Anserini reranker for {sim}")
        call, values = expansion.java, sim.expansion_params
        reranker = getattr(self._java, call.method_for(values))(*call.arguments(expansion.params, values))
        return reranker, expansion.feedback

    def analyze(self, text: str) -> list[str]:
        return str(self._java.analyze(text)).split()

    def search_arrays(self, queries: list[str], sim: Similarity, depth: int, threads: int = 2):
        """The compact form of a batch: hits per query (int32[n]), their Lucene docids (int32)
        and Anserini's tie-adjusted float32 scores, every query's hits in rank order;
        ``self.ids[docids]`` are the external ids."""
        return self.timed_arrays(queries, sim, depth, threads)[0]

    def timed_arrays(self, queries: list, sim: Similarity, depth: int, threads: int = 2):
        """(:meth:`search_arrays`'s arrays, the search's :class:`~harness.engine.latency.SearchTimes`):
        what a Dask worker sends back."""
        packed, times = self._search_packed(queries, sim, depth, threads)
        return batch_arrays(packed, len(queries)), times

    def _impact_packed(self, queries: list, depth: int, threads: int, progress=None) -> tuple[bytes, SearchTimes]:
        """An impact search's packed results (harness.engine.impact) and times: texts and term
        weights each searched in their form (a batch each), the results and times put back in the
        queries' order. ``progress(done)`` counts the queries of both forms."""

        def poll(before: int):
            return None if progress is None else lambda: progress(before + int(self._java.done()))

        texts = [i for i, q in enumerate(queries) if isinstance(q, str)]
        weighted = [i for i, q in enumerate(queries) if not isinstance(q, str)]
        if not texts or not weighted:
            timed = impact.search_packed(self._java, queries, depth, threads, poll=poll(0))
            return timed.packed().tostring(), SearchTimes.of(timed)
        hits: list = [None] * len(queries)
        parts = []
        for before, where in ((0, texts), (len(texts), weighted)):
            batch = [queries[i] for i in where]
            timed = impact.search_packed(self._java, batch, depth, threads, numbers=where, poll=poll(before))
            parts.append(SearchTimes.of(timed))
            counts, docs, scores = batch_arrays(timed.packed().tostring(), len(where))
            ends = np.cumsum(counts).tolist()
            for i, start, end in zip(where, [0, *ends[:-1]], ends):
                hits[i] = (docs[start:end], scores[start:end])
        counts = np.array([len(d) for d, _ in hits], dtype="<i4")
        packed = b"".join([counts.tobytes(), *(d.tobytes() for d, _ in hits), *(s.tobytes() for _, s in hits)])
        return packed, SearchTimes.join(parts, [texts, weighted])

    def _search_packed(
        self, queries: list, sim: Similarity, depth: int, threads: int, progress=None
    ) -> tuple[bytes, SearchTimes]:
        """BatchSearcher.search's packed results (hits per query, docids, float32 scores) and
        what the search took (harness.engine.latency). An impact run's queries are texts or
        ``{term: weight}`` mappings (harness.engine.impact). ``progress(done)`` is called about
        twice a second with the queries done so far."""
        self._check_lengths(sim)
        if not queries:
            return b"", SearchTimes.none(threads)
        if sim.index is not IndexKind.IMPACT and not all(isinstance(q, str) for q in queries):
            raise DataError(self.path, f"{sim} searches query texts; term weights are searched by impact runs")
        # More hits than documents cannot be returned; Lucene caps the same way, and the cap
        # keeps BatchSearcher's k + 1 inside Java's int.
        depth = max(1, min(int(depth), self._java.maxDoc()))
        try:
            if sim.index is IndexKind.IMPACT:
                return self._impact_packed(queries, depth, int(threads), progress)
            reranker, first = self._reranker(sim)
            timed = lucene.interruptible(
                self._java.search,
                list(queries),
                self._similarity(sim),
                int(depth),
                int(threads),
                sim.entry.indri_query,
                reranker,
                int(depth if first is None else first),
                poll=None if progress is None else lambda: progress(int(self._java.done())),
            )
            return timed.packed().tostring(), SearchTimes.of(timed)
        except HarnessError:
            raise
        except Exception as e:
            text = str(e)
            if "OutOfMemoryError" in text:  # its first line, without Java's frames, and what to do
                text = text.strip().splitlines()[0] + "; give Java more memory with HARNESS_JAVA_OPTS=-Xmx8g"
            raise EngineError(f"search with {sim} failed: {text}") from e

    def search_run(
        self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source="", progress=None
    ):
        """A :class:`~harness.formats.run.Run` of ``(qid, text)`` topics, built from the batch's
        arrays without a Python object per hit (topics that return nothing are left out). Its
        ``text_writer`` writes its TREC text from the same results in Java (RunText).
        ``progress(done)``: the topics searched so far, about twice a second."""
        return self.timed_run(topics, sim, depth, threads, source, progress)[0]

    def timed_run(
        self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source="", progress=None
    ):
        """(:meth:`search_run`'s run, the search's :class:`~harness.engine.latency.SearchTimes`)."""
        if self._id_bytes is None:
            self._id_bytes = id_table(self.ids.tolist())
        packed, times = self._search_packed([text for _, text in topics], sim, depth, threads, progress)
        counts, docs, scores = batch_arrays(packed, len(topics))
        run = run_from_arrays(topics, counts, self._id_bytes[docs], scores, source or f"<search {sim}>")
        run.text_writer = run_text_writer(self._run_text, packed, self._ids_raw, [qid for qid, _ in topics])
        return run, times

    def search(self, queries: list[str], sim: Similarity, depth: int, threads: int = 2):
        """For each query text, (doc ids, float64 scores) in rank order."""
        counts, docs, scores = self.search_arrays(queries, sim, depth, threads)
        return unpack(counts, self.ids[docs], scores)

    def close(self) -> None:
        self._java.close()


def batch_arrays(raw: bytes, n: int):
    """(counts, docids, scores) of BatchSearcher.search's packed results for n queries."""
    if not n:
        return np.zeros(0, "<i4"), np.zeros(0, "<i4"), np.zeros(0, "<f4")
    counts = np.frombuffer(raw, dtype="<i4", count=n)
    total = int(counts.sum())
    docs = np.frombuffer(raw, dtype="<i4", count=total, offset=4 * n)
    scores = np.frombuffer(raw, dtype="<f4", count=total, offset=4 * (n + total))
    return counts, docs, scores


def run_text_writer(run_text, packed: bytes, ids: bytes, qids: list[str]):
    """A Run's ``text_writer`` (harness.formats.runs.write_run): RunText.write of the batch's
    packed results to the path given. Declines (False) where RunText does, and on any Java
    failure, a full disk included: write_run then writes the file itself and names the problem."""
    encoded = [q.encode("utf-8", "surrogateescape") for q in qids]
    if any(b"\n" in q for q in encoded):  # one id per line for RunText (write_run refuses those ids)
        return None
    lines = b"".join(q + b"\n" for q in encoded)

    def write(path, tag: str) -> bool:
        try:
            return run_text.write(str(path), packed, ids, lines, tag.encode("utf-8", "surrogateescape")) >= 0
        except Exception:
            return False

    return write


def id_table(ids: list[str]) -> np.ndarray:
    """External ids in Lucene docid order as the NUL-padded ``S`` array a Run holds."""
    return pad8(np.array([d.encode("utf-8", "surrogateescape") for d in ids], "S"))


def run_from_arrays(topics, counts: np.ndarray, ids: np.ndarray, scores: np.ndarray, source: str):
    """A :class:`~harness.formats.run.Run` of ``(qid, text)`` topics from a batch's compact
    arrays (``ids``: the hits' external ids as an ``S`` array, in rank order), without a Python
    object per hit; topics that returned nothing are left out."""
    keep = np.flatnonzero(counts > 0)
    offsets = np.zeros(len(keep) + 1, dtype=np.int64)
    np.cumsum(counts[keep], out=offsets[1:])
    return Run([topics[i][0] for i in keep.tolist()], offsets, ids, strictly_decreasing(scores, offsets[:-1]), source)


def unpack(counts: np.ndarray, ids: np.ndarray, scores: np.ndarray) -> list[tuple[list[str], np.ndarray]]:
    """Per query, (doc ids, strictly decreasing float64 scores) from a batch's compact arrays
    (``ids``: the hits' external ids, an object array in rank order)."""
    out = []
    start = 0
    for c in counts.tolist():
        end = start + c
        out.append((ids[start:end].tolist(), strictly_decreasing(scores[start:end])))
        start = end
    return out
