"""The folder Anserini's IndexCollection reads for a corpus, made under the build's staging folder
when the corpus is not that folder already, by the format's :class:`~harness.formats.catalog.Staging`:

- read as it is (``AS_IS``): a folder is read in place; a single file (or a BEIR folder's corpus
  file) is staged alone (a hard link, else a copy) in a folder of its own, since Anserini reads
  folders, under a name its collection class reads (``corpus.ndjson`` as ``corpus.ndjson.json``);
- a text folder (``TEXT_FILES``) becomes one JsonCollection file, each ``.txt`` file a document whose
  id is its path relative to the folder (``sample_docs/x.txt``), as in the course lab;
- MS MARCO's passages (``PASSAGES``) become the JSON files Anserini's own conversion writes
  (harness.formats.msmarco);
- an ir_datasets collection (``DATASET``) is streamed from ir_datasets into one JSON-lines file,
  never held in memory.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from harness.engine.corpus import Corpus
from harness.errors import DataError, read_error
from harness.formats import irds
from harness.formats.catalog import Staging
from harness.formats.hygiene import check_id
from harness.formats.json_docs import JSON_STRING_LIMIT, too_long
from harness.formats.msmarco import passages_to_json

__all__ = ["stage", "staged_files"]


def stage(corpus: Corpus, staging: Path) -> Path:
    """The folder Anserini should read, its files made under ``staging`` when needed."""
    return _STAGES[corpus.format.staging](corpus, staging)


def staged_files(corpus: Corpus, staging: Path) -> list[Path] | None:
    """The JSON-lines files a corpus converted first is staged as, in order (made under
    ``staging``); None for a corpus Anserini reads as it is (harness.engine.shards cuts either)."""
    if corpus.format.staging is Staging.AS_IS:
        return None
    return sorted(stage(corpus, staging).iterdir())


def _as_is(corpus: Corpus, staging: Path) -> Path:
    fmt = corpus.format
    if not (corpus.path.is_file() or fmt.corpus_names):
        return corpus.path
    source = corpus.files()[0] if fmt.corpus_names else corpus.path  # a BEIR folder: its corpus file alone
    staging.mkdir(parents=True, exist_ok=True)
    name = source.name
    if fmt.anserini_names and not name.endswith(fmt.anserini_names):
        # a file the user named (corpus.ndjson): staged under a name Anserini reads
        name += fmt.anserini_names[0]
    target = staging / name
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
    return staging


def _text_files(corpus: Corpus, staging: Path) -> Path:
    if not corpus.path.is_dir():
        raise DataError(corpus.path, f"a {corpus.format} collection must be a folder of .txt files")
    staging.mkdir(parents=True, exist_ok=True)
    with open(staging / "docs.jsonl", "w", encoding="utf-8") as fh:
        for f in corpus.files():
            doc_id = check_id(f, "document id (the file's path in the folder)", f.relative_to(corpus.path).as_posix())
            size = f.stat().st_size
            if size > 4 * JSON_STRING_LIMIT:  # more than any 20M-character text: never read it
                raise DataError(f, too_long("the text", f"{size:,} bytes"))
            try:
                text = f.read_bytes().decode("utf-8")
            except UnicodeDecodeError as e:
                raise DataError(f, f"not UTF-8 text (byte {e.start})") from None
            except OSError as e:
                raise read_error(f, f"cannot read: {e.strerror or e}", e) from None
            if text.startswith("\ufeff"):
                text = text[1:]
            if len(text) > JSON_STRING_LIMIT:
                raise DataError(f, too_long("the text", f"{len(text):,} characters"))
            fh.write(json.dumps({"id": doc_id, "contents": text}, ensure_ascii=False) + "\n")
    return staging


def _passages(corpus: Corpus, staging: Path) -> Path:
    if staging.exists():
        shutil.rmtree(staging)  # a conversion an interrupted build left: made again
    passages_to_json(corpus.files(), staging, JSON_STRING_LIMIT)
    return staging


def _dataset(corpus: Corpus, staging: Path) -> Path:
    staging.mkdir(parents=True, exist_ok=True)
    dataset = corpus.dataset
    assert dataset is not None  # Staging.DATASET is an ir_datasets collection's
    irds.write_collection(*dataset, staging / "docs.jsonl", JSON_STRING_LIMIT)
    return staging


_STAGES: dict[Staging, Callable[[Corpus, Path], Path]] = {
    Staging.AS_IS: _as_is,
    Staging.TEXT_FILES: _text_files,
    Staging.PASSAGES: _passages,
    Staging.DATASET: _dataset,
}
