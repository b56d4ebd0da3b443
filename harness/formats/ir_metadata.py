"""ir_metadata inside a TREC run file: the block of comment lines at a run's top that
ir-metadata.org's schema (Breuer, Keller and Schaer, SIGIR 2022) puts there, framed as its
reference tool, repro_eval 0.5.0 (``repro_eval.metadata.MetadataHandler``), writes and reads it::

    # ir_metadata.start
    # schema-version: 0.1
    # tag: bm25
    # ...
    # ir_metadata.end
    301 Q0 FBIS3-10082 1 12.5 bm25

- **Written** (:func:`write_annotated`): the start line, each line of the YAML document as
  ``"# " + line + " "`` (repro_eval's ``' '.join(['#', line, '\\n'])``: a trailing space too, not
  shown above), the end line, then the run's own lines unchanged.
- **Read back** by repro_eval's reader: the first line is the start line; every line up to
  the end line, its ``#`` stripped, is the YAML document. The harness writes the document
  (:mod:`harness.report.ir_metadata`) and never reads it back, so this module imports no YAML
  library: the run readers, and ``harness trec_eval`` (:func:`starts_with_block`), start without
  one. The tests read the block with repro_eval's own reader.
- **Skipped** by every run reader of the harness (:func:`block_span`: the block's bytes and
  lines, so a later line keeps its number in errors): only this block, only at the top (after a
  byte-order mark, if any). A ``#`` line anywhere else is a line of fields, as it always was.
  A block whose end line is missing is an error naming the line where it should have been.

trec_eval 9.0.8 reads every line as fields, ``#`` lines too: the start line has two and it stops
there ("Malformed line 1"). ``harness trec_eval`` does the same (harness.verbs.trec_eval).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import BOM, LINE_LIMIT

__all__ = [
    "START",
    "END",
    "SUFFIX",
    "yml_name",
    "STRIP_HINT",
    "block_span",
    "starts_with_block",
    "block",
    "write_annotated",
    "copy_annotated",
]

START = b"# ir_metadata.start"
END = b"# ir_metadata.end"
# The file beside a run that holds its ir_metadata: runs/bm25.trec's is runs/bm25.ir-metadata.yml
SUFFIX = ".ir-metadata.yml"

# What a user can run to get the run's lines alone (for trec_eval 9.0.8, which stops at the block).
STRIP_HINT = "sed '/^# ir_metadata.start/,/^# ir_metadata.end/d' FILE > FILE.plain"


def yml_name(run_file: str) -> str:
    """The ir_metadata file beside the run file ``run_file`` (``bm25.trec`` -> ``bm25.ir-metadata.yml``)."""
    return Path(run_file).stem + SUFFIX


def starts_with_block(path: str | os.PathLike) -> bool:
    """Whether the file's first line (after a byte-order mark) is the start line; False when it
    cannot be read (the reader then says why)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(BOM) + len(START) + 256)
    except OSError:
        return False
    head = head.removeprefix(BOM)
    first = head.split(b"\n", 1)[0]
    return first.rstrip() == START


def block_span(path: str | os.PathLike) -> tuple[int, int]:
    """(bytes, lines) of the ir_metadata block at the top of the run file ``path``, its
    byte-order mark included; (0, 0) when the file has none (or cannot be read: the reader then
    says why). A block not closed by ``# ir_metadata.end`` is a :class:`DataError` naming the
    first line that is no comment (the run's first line, most often), or the file's end."""
    if not starts_with_block(path):
        return 0, 0
    source = str(path)
    with open(path, "rb") as f:
        size = len(BOM) if f.read(len(BOM)) == BOM else 0
        f.seek(size)
        lines = 0
        while line := f.readline(LINE_LIMIT + 1):
            lines += 1
            size += len(line)
            stripped = line.rstrip()
            if lines > 1 and stripped == END:
                return size, lines
            if len(line) > LINE_LIMIT or not line.startswith(b"#"):
                text = line[:80].decode("utf-8", "replace").rstrip()
                raise DataError(
                    source,
                    f"line {lines} is inside the ir_metadata block that line 1 opens, where every line is a "
                    f"comment (#) until '# ir_metadata.end', and it is not one ({text!r}): is the end line missing?",
                    line=lines,
                )
    raise DataError(
        source,
        "the ir_metadata block that line 1 opens is never closed: the file ends before '# ir_metadata.end'",
        line=lines + 1,
    )


def block(document_yaml: str) -> bytes:
    """The comment block that carries ``document_yaml`` (a YAML text), as repro_eval frames it."""
    lines = [START + b"\n"]
    lines += [b"# " + line.encode("utf-8") + b" \n" for line in document_yaml.split("\n")[:-1]]
    lines.append(END + b"\n")
    return b"".join(lines)


def write_annotated(out, run_file: str | os.PathLike, document_yaml: str) -> str:
    """Write to the binary file ``out`` the block carrying ``document_yaml``, then the lines of
    ``run_file`` unchanged (after its own block, if it has one: a run holds one block, which
    this one replaces, and after a byte-order mark); return the sha256 of all that was written."""
    h = hashlib.sha256()
    head = block(document_yaml)
    out.write(head)
    h.update(head)
    skip, _ = block_span(run_file)
    with open(Path(run_file), "rb") as src:
        if not skip and src.read(len(BOM)) != BOM:  # a byte-order mark goes too: it starts a file only
            src.seek(0)
        src.seek(skip or src.tell())
        while chunk := src.read(1 << 20):
            out.write(chunk)
            h.update(chunk)
    return h.hexdigest()


def copy_annotated(run_file: str | os.PathLike, dst: str | os.PathLike, document_yaml: str) -> str:
    """``dst`` written as :func:`write_annotated` writes it (a new file: never a link to
    ``run_file``, which stays as it is); the sha256 of ``dst``."""
    with open(dst, "xb") as out:
        return write_annotated(out, run_file, document_yaml)
