"""The collection's and the topics' formats against their files, read while validating (no Java,
nothing indexed): the layout their first lines show (harness.formats.layouts) decides.

- A collection given without `format` (`collection: PATH`, or `{path: PATH}`) is read as the one
  format its files show: a BEIR dataset folder (its corpus.jsonl or corpus.jsonl.gz of `_id`,
  `title`, `text`), or a file whose lines only one format reads (`pid<TAB>text` lines, JSON lines of
  `id` and `contents`, ...). The config then says which (`Config.collection_read_as`): a warning
  when it is loaded, and manifest.json. Any other path (a folder, a file of no layout or of two)
  is refused with the mapping to write.
- A format given for files whose lines show another layout (a BEIR corpus declared `jsonl`, BEIR's
  queries.jsonl read as tsv topics) is refused with the mapping to write, naming the file and line
  that show it, rather than failing when indexing has begun or with a TSV reader's complaint.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from harness.config.nodes import INVALID, Ctx
from harness.engine.beir import corpus_file
from harness.engine.corpus import Corpus
from harness.errors import DataError
from harness.formats.catalog import BEIR_CORPUS_NAMES, COLLECTION_FORMATS, CollectionFormat, TopicFormat, choices
from harness.formats.layouts import LAYOUTS, Sniffed, reads, sniff

__all__ = ["check_layouts"]

# the formats whose files' lines show a layout, by role: those LAYOUTS names (not text-folder or
# html, whose files are read as whole documents, nor Anserini's named topic readers)
_CHECKED = {role: {f for x in LAYOUTS.values() for f in getattr(x, role)} for role in ("collection", "topics")}


def check_layouts(ctx: Ctx, v: dict) -> None:
    """Read the collection's format from its files when the config gives none; check a given
    collection or topics format against the layout of its files. Problems go to ``ctx``; the
    format read, and how, to ``v["collection"]["format"]`` and ``ctx.found["collection_read_as"]``."""
    c = v["collection"]
    if isinstance(c, dict) and c.get("irds") is None and isinstance(c.get("path"), Path):
        if c.get("format") is None:
            c["format"] = _read_format(ctx, c["path"])
        elif c["format"] in _CHECKED["collection"] and not _collection_reads(ctx, c["path"], c["format"]):
            c["format"] = INVALID  # one mistake, one error: no check across keys follows from it
    t = v["topics"]
    if (
        isinstance(t, dict)
        and t.get("pyserini") is None
        and t.get("irds") is None
        and isinstance(t.get("path"), Path)
        and t.get("format") in _CHECKED["topics"]
    ):
        if not _topics_read(ctx, t["path"], t["format"]):
            t["format"] = INVALID


def _text(ctx: Ctx, key: str) -> str:
    """The path as the config (or the command line) wrote it."""
    node = ctx.nodes.get(key)
    return str(getattr(node, "value", "")) or "PATH"


def _mapping(section: str, path: str, fmt: CollectionFormat | TopicFormat) -> str:
    """``collection: {path: scifact, format: beir}``, quoted where YAML needs it."""
    body = yaml.safe_dump({"path": path, "format": str(fmt)}, default_flow_style=True, sort_keys=False, width=1 << 16)
    return f"`{section}: {body.strip()}`"


def _readers(seen: Sniffed, role: str) -> tuple:
    """The ``role`` formats that read the file ``seen``; a .gz file is not read by a format that
    reads its lines as plain text (tsv: harness.formats.msmarco, harness.formats.topics)."""
    layout = seen.layout
    if layout is None:
        return ()
    formats = getattr(layout, role)
    return tuple(f for f in formats if not (seen.compressed and f.plain_text))


def _joined(text: str, base: Path, f: Path) -> str:
    """The config's path ``text`` (naming ``base``) extended to the file ``f`` inside it."""
    return text if f == base else f"{text.rstrip('/')}/{f.relative_to(base).as_posix()}"


def _holds(seen: Sniffed) -> str:
    """``/data/corpus.jsonl:1 holds a JSON object with the keys "_id", "title", "text": BEIR corpus documents``."""
    layout = seen.layout
    if layout is None:
        return f"{seen.evidence()}, in no one layout the harness knows from a file's first lines"
    return f"{seen.evidence()}: {layout.what}"


def _read_format(ctx: Ctx, path: Path) -> CollectionFormat | object:
    """The format of a collection given without one, or INVALID (a problem says what to write)."""
    text, node = _text(ctx, "collection.path"), ctx.nodes.get("collection")
    formats = ", ".join(choices(COLLECTION_FORMATS))
    placeholder = f"`collection: {{path: {text}, format: FORMAT}}` with FORMAT one of {formats}"
    folder = path.is_dir()
    if folder:
        if not any((path / n).exists() for n in BEIR_CORPUS_NAMES):
            why = (
                f"{path} is a folder, and a folder's format is read from its files only for a BEIR dataset "
                f"folder ({' or '.join(BEIR_CORPUS_NAMES)})"
            )
            return ctx.problem("collection", f"{why}: name it, {placeholder}", node)
        try:
            seen = sniff(corpus_file(path))
        except DataError as e:  # both corpus.jsonl and corpus.jsonl.gz
            return ctx.problem("collection", str(e), node)
    else:
        seen = sniff(path)
    read = _readers(seen, "collection")
    if len(read) == 1 and (read[0].corpus_names or not folder):  # a file, or a dataset folder (BEIR's)
        how = f"a BEIR folder: {_holds(seen)}" if folder else _holds(seen)
        ctx.found["collection_read_as"] = (text, read[0], how, _mapping("collection", text, read[0]))
        return read[0]
    if folder and read:  # a BEIR folder's corpus file in another layout: that file, in its format
        write = " or ".join(_mapping("collection", _joined(text, path, seen.path), f) for f in read)
        return ctx.problem("collection", f"{_holds(seen)}, not BEIR corpus documents; write {write}", node)
    if read:
        write = " or ".join(_mapping("collection", text, f) for f in read)
        return ctx.problem(
            "collection", f"{_holds(seen)}, which {' and '.join(map(str, read))} both read; say which: {write}", node
        )
    if seen.compressed and seen.layout is not None and seen.layout.collection:
        return ctx.problem("collection", _compressed(seen, seen.layout.collection[0]), node)
    if seen.layout is not None and seen.layout.topics:  # queries given as the collection
        as_topics = _mapping("topics", text, seen.layout.topics[0])
        return ctx.problem(
            "collection", f"{_holds(seen)}, not documents: is it the right file? (as topics: {as_topics})", node
        )
    what = "" if seen.layout is None else ", not documents"
    return ctx.problem("collection", f"{_holds(seen)}{what}: name its format, {placeholder}", node)


def _compressed(seen: Sniffed, fmt: CollectionFormat) -> str:
    return (
        f"{seen.path} is gzip-compressed, and format {fmt} reads its lines from an uncompressed file: "
        f"decompress it first, e.g. `gunzip -k {seen.path}`"
    )


def _collection_reads(ctx: Ctx, path: Path, fmt: CollectionFormat) -> bool:
    """Whether ``format`` reads the first file the collection is read from (a folder's first in
    Anserini's order; a BEIR folder's corpus file), as far as its first lines show; else a problem."""
    try:
        files = Corpus(path, fmt).files()
    except DataError:
        return True  # no file to read: said, with its reason, when the collection is read
    seen = sniff(files[0])
    read = _readers(seen, "collection")
    node = ctx.nodes.get("collection.format")
    if seen.layout is not None and seen.compressed and fmt in seen.layout.collection and fmt not in read:
        ctx.problem("collection.format", _compressed(seen, fmt), node)
        return False
    if not read or fmt in read:  # lines no format reads: the readers name what is missing, line by line
        return True
    text = _text(ctx, "collection.path")
    beir_folder = path.is_dir() and any((path / n).exists() for n in BEIR_CORPUS_NAMES)
    if path.is_dir() and (fmt.corpus_names or read[0].corpus_names and not beir_folder):
        text = _joined(text, path, files[0])  # a BEIR folder's corpus file in its own format; a file read as BEIR's
    why = f"{_holds(seen)}, which format {fmt} does not read ({fmt} reads {reads('collection', fmt)})"
    ctx.problem("collection.format", f"{why}; write {_mapping('collection', text, read[0])}", node)
    return False


def _topics_read(ctx: Ctx, path: Path, fmt: TopicFormat) -> bool:
    """Whether ``format`` reads the topics file, as far as its first lines show; else a problem."""
    seen = sniff(path)
    read = _readers(seen, "topics")
    if not read or fmt in read:  # lines no format reads: the reader names what is missing
        return True
    given = "topics.format" in ctx.present
    if given:
        why = f"{_holds(seen)}, which format {fmt} does not read ({fmt} reads {reads('topics', fmt)})"
    else:
        why = f"{_holds(seen)}; topics given as a path alone are read as {fmt}: {reads('topics', fmt)}"
    key = "topics.format" if given else "topics"
    ctx.problem(key, f"{why}; write {_mapping('topics', _text(ctx, 'topics.path'), read[0])}", ctx.nodes.get(key))
    return False
