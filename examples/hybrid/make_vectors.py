"""Vectors for the hybrid example: the embedded sample collection (corpora/) and its topics
(topics/demo.tsv) as 16-dimensional unit vectors, by latent semantic analysis (tf-idf, then a
truncated SVD), with numpy alone.

A stand-in for an embedding model, so the example needs no download and no torch: any model
writes the same two files (docs/config.md: *Dense retrieval* shows one). Run from the repository:

    python examples/hybrid/make_vectors.py [OUT_FOLDER]   # default: examples/hybrid
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
DIM = 16
WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def main(out: Path) -> None:
    docs = sorted((REPO / "corpora" / "sample_docs").glob("*.txt"))
    ids = [f"sample_docs/{p.name}" for p in docs]  # the ids of the text-folder collection
    texts = [words(p.read_text(encoding="utf-8")) for p in docs]
    topics = [line.split("\t", 1) for line in (REPO / "topics" / "demo.tsv").read_text().splitlines() if line]
    vocab = sorted({w for t in texts for w in t})
    at = {w: i for i, w in enumerate(vocab)}
    tf = np.zeros((len(texts), len(vocab)))
    for i, t in enumerate(texts):
        for w in t:
            tf[i, at[w]] += 1
    idf = np.log(len(texts) / (tf > 0).sum(axis=0))
    u, s, vt = np.linalg.svd(np.log1p(tf) * idf, full_matrices=False)
    basis = vt[:DIM]
    basis *= np.sign(basis[np.arange(DIM), np.abs(basis).argmax(axis=1)])[:, None]  # one sign per axis

    def embed(counts: np.ndarray) -> list[float]:
        v = (np.log1p(counts) * idf) @ basis.T
        return [round(float(x), 6) for x in v / (np.linalg.norm(v) or 1.0)]

    out.mkdir(parents=True, exist_ok=True)
    with open(out / "doc-vectors.jsonl", "w", encoding="utf-8") as fh:
        for docid, row in zip(ids, tf):
            fh.write(json.dumps({"docid": docid, "vector": embed(row)}) + "\n")
    with open(out / "query-vectors.jsonl", "w", encoding="utf-8") as fh:
        for qid, text in topics:
            counts = np.zeros(len(vocab))
            for w in words(text):
                if w in at:
                    counts[at[w]] += 1
            fh.write(json.dumps({"qid": qid, "vector": embed(counts)}) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
