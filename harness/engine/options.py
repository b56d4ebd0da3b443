"""What changes an index: :class:`IndexOptions`, the analyzer, the document lengths, a dense or an
impact index, the fields; as IndexCollection's arguments (``anserini()``, part of the index's
fingerprint) and as the manifest records them (``recorded()``, read back by ``from_manifest``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from harness.policies import DEFAULT_LANGUAGE

__all__ = ["IndexOptions"]


@dataclass(frozen=True)
class IndexOptions:
    """What changes the index. Defaults are Anserini's: Porter stemming, English stopwords removed."""

    stemmer: str = "porter"  # porter | krovetz | none
    stopwords: bool = True  # True: remove Anserini's English stopwords
    # How document lengths are stored: "lucene", Lucene's one-byte norms, which every similarity
    # but accurate BM25 decodes; "exact", the exact number of terms (IndexCollection
    # -bm25.accurate), which only Anserini's AccurateBM25Similarity reads. The experiment builds
    # an "exact" index beside the ordinary one for the runs that need it (harness.experiment.plan).
    lengths: str = "lucene"
    # The analyzer's language (harness.policies.LANGUAGES): "en" is DefaultEnglishAnalyzer with
    # the two options above; any other code is the analyzer Anserini picks for it (IndexCollection
    # -language), and the stemmer and stopword options mean nothing there.
    language: str = DEFAULT_LANGUAGE
    # A dense index of the user's vectors (a "vectors" collection): "flat" (Anserini's
    # IndexFlatDenseVectors, exact search) or "hnsw" (IndexHnswDenseVectors with M and efC,
    # Anserini's defaults); None for the inverted index of text. The analyzer options mean nothing then.
    vectors: str | None = None
    M: int = 16
    efC: int = 500
    # "int8": the vectors also stored scalar-quantised to a byte each (Anserini's -quantize.sqv,
    # Lucene's scalar-quantised formats); None: float32 only.
    quantize: str | None = None
    # An index of the user's term weights (an "impact" collection, Anserini's JsonVectorCollection):
    # IndexCollection -impact -pretokenized, so each term is indexed as written (Lucene's
    # WhitespaceAnalyzer) with its weight as its frequency, and ImpactSimilarity's norms. No
    # positions or document vectors (nothing the harness searches reads them; Anserini's own
    # impact indexes store neither); the raw document is kept for the report. The analyzer options
    # mean nothing then.
    impact: bool = False
    # A multifield index (a beir collection with fields): the fields searched and their weights,
    # ("contents", w), ("title", w)...; the fields besides "contents" are indexed apart
    # (IndexCollection -fields). The weights change runs, not the index: they are not in anserini().
    fields: tuple[tuple[str, float], ...] = ()

    @property
    def indexer(self) -> str:
        """The Anserini indexer class that builds the index (its Args take anserini()'s keys)."""
        return {None: "IndexCollection", "flat": "IndexFlatDenseVectors", "hnsw": "IndexHnswDenseVectors"}[self.vectors]

    def anserini(self) -> dict[str, object]:
        if self.impact:
            return {
                "generatorClass": "DefaultLuceneDocumentGenerator",
                "impact": True,
                "pretokenized": True,
                "storePositions": False,
                "storeDocvectors": False,
                "storeRaw": True,
            }
        if self.vectors is not None:
            args: dict[str, object] = {"indexer": self.indexer, "generatorClass": "DenseVectorDocumentGenerator"}
            if self.vectors == "hnsw":
                args.update(M=self.M, efC=self.efC)
            if self.quantize == "int8":  # only then: unquantised indexes keep their fingerprints
                args["quantizeSQV"] = True
            return args
        args = {
            "generatorClass": "DefaultLuceneDocumentGenerator",
            "stemmer": self.stemmer,
            "keepStopwords": not self.stopwords,
            "storePositions": True,
            "storeDocvectors": True,
            "storeRaw": True,
        }
        if self.lengths == "exact":  # only then: the fingerprints of ordinary indexes stay as they were
            args["bm25Accurate"] = True
        if self.language != DEFAULT_LANGUAGE:
            # Only then: English indexes keep the fingerprints they had before languages existed.
            args["language"] = self.language
        if self.fields:  # only then, likewise
            args["fields"] = [name for name, _ in self.fields if name != "contents"]
        return args

    def recorded(self) -> dict[str, object]:
        """The options as a manifest records them: ``language`` only when it is not English, so
        an English index's manifest reads as it did before languages existed."""
        out = asdict(self)
        if self.language == DEFAULT_LANGUAGE:
            del out["language"]
        if self.quantize is None:
            del out["quantize"]
        if not self.impact:  # only then: the other indexes' manifests read as before
            del out["impact"]
        else:
            for key in ("stemmer", "stopwords", "language"):
                out.pop(key, None)  # no analyzer options in an impact index
        if not self.fields:
            del out["fields"]
        else:
            out["fields"] = dict(self.fields)
        if self.vectors is None:  # a text index's manifest reads as before dense indexes existed
            del out["vectors"], out["M"], out["efC"]
            return out
        for key in ("stemmer", "stopwords", "lengths", "language", *(("M", "efC") if self.vectors == "flat" else ())):
            out.pop(key, None)  # no analyzer, no lengths in a vectors index
        return out

    @classmethod
    def from_manifest(cls, opts: dict[str, Any]) -> IndexOptions:
        """The options a harness-index.json records (keys of older manifests default)."""
        keys = ("stemmer", "stopwords", "lengths", "language", "vectors", "M", "efC", "quantize", "impact")
        return cls(**{k: v for k, v in opts.items() if k in keys})
