"""The retrieval engine: the only stage that touches the JVM (through :mod:`harness.engine.lucene`).

``corpus`` (what Anserini's IndexCollection reads), ``index`` (building and reusing indexes),
``search`` (batch retrieval with Anserini's semantics: the similarity each run's spec names,
harness.specs), ``topics`` (topic formats that need Anserini's readers) and ``java/`` (the batch
searcher's source and class). Importing this package starts nothing.
"""
