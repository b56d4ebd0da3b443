"""Readers and writers of the files users bring and get: TREC runs, qrels, topics (TSV, JSONL),
and the columnar tokeniser the run and qrels readers share. Strict, with file and line in every
error; no Java."""
