"""MS MARCO passage's shape, synthetic, deterministic and streamed (bench_ladder.py's rungs).

MS MARCO passage: 8,841,823 passages averaging ~56 words (stop words included), 6,980 dev-small
queries of 2-8 words with 7,437 judgments (one or two judged passages a query). Here:

  vocabulary  VOCAB pseudo-words (syllables of consonant + vowel, no "s", "e" or "y", so Porter's
              stemmer leaves most of them whole) after Anserini's 33 English stop words, drawn by
              a Zipf law (exponent ZIPF): the stop words take about a quarter of all tokens, as
              in English text, and are removed by the analyzer as in MS MARCO.
  passages    ids "0".."N-1" (MS MARCO's), lengths Gamma(4, 14) + 1 words (mean ~57), words by
              the Zipf law; written CHUNK passages at a time from a generator seeded by
              (SEED, chunk): memory stays that of one chunk whatever the rung.
  topics      6,980 (MS MARCO's dev-small count), ids drawn from 1..1,102,400 as MS MARCO's,
              2-8 words, each a stop word with p = 0.3 (by the Zipf law; at least one word is not),
              else a word of log-uniform rank from 100 to the vocabulary's size (queries ask for
              mid-frequency and rare words, not the corpus's commonest); 457 of them have two judged passages (7,437
              judgments), each judged passage carrying the topic's words (each with p = 0.75, at
              least one) in place of some of its own, so the rankings find something.

Files (in ``out/ladder-<N>/``): ``corpus/docs.jsonl`` (Anserini's JsonCollection: id, contents),
``topics.tsv`` (qid TAB text), ``qrels.txt`` (qid 0 docid 1). A file is written under a temporary
name and renamed when complete, so an interrupted generation is started again, never reused.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

__all__ = ["RUNGS", "MSMARCO", "generate", "vocabulary"]

MSMARCO = {"passages": 8_841_823, "topics": 6_980, "judgments": 7_437}
RUNGS = {"100k": 100_000, "1M": 1_000_000, "8.8M": MSMARCO["passages"]}
VOCAB = 1_200_000
ZIPF = 1.0
SEED = 37
CHUNK = 50_000
# Anserini's (Lucene's) English stop words: DefaultEnglishAnalyzer removes them.
STOPWORDS = (
    "the of and to a in is that for it as was with be by on not are this but they at or an "
    "such if into no their then there these will"
).split()
CONSONANTS = np.array(list("bdfgklmnprtvz"))
VOWELS = np.array(list("aiou"))


def vocabulary() -> np.ndarray:
    """The words in Zipf rank order (stop words first), a bytes array; the same every time."""
    rng = np.random.default_rng(SEED)
    words: list[bytes] = []
    seen = set(w.encode() for w in STOPWORDS)
    while len(words) < VOCAB:
        n = VOCAB - len(words)
        syllables = rng.integers(2, 5, size=2 * n)
        cons = CONSONANTS[rng.integers(0, len(CONSONANTS), size=(2 * n, 4))]
        vows = VOWELS[rng.integers(0, len(VOWELS), size=(2 * n, 4))]
        pairs = np.char.add(cons, vows)
        for row, k in zip(pairs.tolist(), syllables.tolist()):
            w = "".join(row[:k]).encode()
            if w not in seen:
                seen.add(w)
                words.append(w)
                if len(words) == VOCAB:
                    break
    return np.array([w.encode() for w in STOPWORDS] + words, dtype=object)


def _cdf(size: int) -> np.ndarray:
    p = 1.0 / np.arange(1, size + 1, dtype=np.float64) ** ZIPF
    c = np.cumsum(p)
    return c / c[-1]


def _draw(rng, cdf: np.ndarray, n: int) -> np.ndarray:
    return np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), len(cdf) - 1)


def _topics(n_docs: int, vocab: np.ndarray, cdf: np.ndarray):
    """[(qid, word ranks)], and the judged passages: {docno: [(qid, word ranks)]}, qrels lines."""
    rng = np.random.default_rng([SEED, n_docs, 1])
    count = MSMARCO["topics"]
    qids = np.sort(rng.choice(np.arange(1, 1_102_401), size=count, replace=False))
    topics, judged, qrels = [], {}, []
    two = set(rng.choice(count, size=MSMARCO["judgments"] - count, replace=False).tolist())
    for i, qid in enumerate(qids.tolist()):
        k = int(rng.integers(2, 9))
        stop = rng.random(k) < 0.3  # "what is the ...": removed by the analyzer
        stop[int(rng.integers(0, k))] = False
        content = (10 ** rng.uniform(2, np.log10(len(vocab)), size=k)).astype(np.int64)
        words = np.where(stop, _draw(rng, cdf[: len(STOPWORDS)] / cdf[len(STOPWORDS) - 1], k), content)
        topics.append((qid, words))
        for _ in range(2 if i in two else 1):
            while True:
                doc = int(rng.integers(0, n_docs))
                if doc not in judged or all(q != qid for q, _ in judged[doc]):
                    break
            judged.setdefault(doc, []).append((qid, words))
            qrels.append((qid, doc))
    return topics, judged, qrels


def _passages(start: int, stop: int, chunk: int, vocab: np.ndarray, cdf: np.ndarray, judged: dict) -> bytes:
    rng = np.random.default_rng([SEED, chunk])
    n = stop - start
    lengths = (rng.gamma(4.0, 14.0, size=n) + 1).astype(np.int64)
    words = vocab[_draw(rng, cdf, int(lengths.sum()))].tolist()
    out = []
    at = 0
    for i, length in enumerate(lengths.tolist()):
        doc = words[at : at + length]
        at += length
        for _, q in judged.get(start + i, ()):
            keep = rng.random(len(q)) < 0.75
            keep[int(rng.integers(0, len(q)))] = True
            for w in q[keep].tolist():
                doc[int(rng.integers(0, len(doc)))] = vocab[w]
                if len(doc) < 200:
                    doc.append(vocab[w])
        out.append(b'{"id": "%d", "contents": "%s"}\n' % (start + i, b" ".join(doc)))
    return b"".join(out)


def generate(n_docs: int, out: Path, *, on=print) -> dict[str, Path]:
    """The rung of ``n_docs`` passages in ``out/ladder-<n_docs>/`` (reused when complete)."""
    folder = Path(out) / f"ladder-{n_docs}"
    paths = {"corpus": folder / "corpus" / "docs.jsonl", "topics": folder / "topics.tsv", "qrels": folder / "qrels.txt"}
    if all(p.exists() for p in paths.values()):
        return paths
    paths["corpus"].parent.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary()
    cdf = _cdf(len(vocab))
    topics, judged, qrels = _topics(n_docs, vocab, cdf)
    tmp = paths["corpus"].with_name(".docs.jsonl.tmp")
    with open(tmp, "wb") as fh:
        for chunk, start in enumerate(range(0, n_docs, CHUNK)):
            fh.write(_passages(start, min(start + CHUNK, n_docs), chunk, vocab, cdf, judged))
            if chunk % 20 == 19:
                on(f"  generated {start + CHUNK:,} of {n_docs:,} passages")
    os.replace(tmp, paths["corpus"])
    for key, lines in (
        ("topics", [f"{qid}\t{b' '.join(vocab[w].tolist()).decode()}\n" for qid, w in topics]),
        ("qrels", [f"{qid} 0 {doc} 1\n" for qid, doc in qrels]),
    ):
        tmp = paths[key].with_name(f".{paths[key].name}.tmp")
        tmp.write_text("".join(lines))
        os.replace(tmp, paths[key])
    return paths


if __name__ == "__main__":  # python bench/ladder_data.py N [OUT]: generate one rung
    import sys
    import time

    t = time.perf_counter()
    n = int(float(sys.argv[1]))
    got = generate(n, Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parent / "out")
    print({k: str(v) for k, v in got.items()}, f"{time.perf_counter() - t:.1f} s")
