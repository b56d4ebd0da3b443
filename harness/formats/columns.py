"""The columns the run and qrels readers fill block by block from the tokeniser's blocks: the file
line of each row (:class:`LineMap`), the topic column as segments (:class:`TopicColumn`), a
column sized from the file (:class:`Column`), and ids widened to 8-byte words (:func:`pad8`)."""

from __future__ import annotations

import bisect

import numpy as np

from harness.formats.tokenizer import fixed_bytes

__all__ = ["LineMap", "TopicColumn", "Column", "pad8"]


class LineMap:
    """File line of each row, kept per block (no per-row array for regular blocks)."""

    def __init__(self):
        self.rows = [0]
        self.info = []
        self.order = None  # set when rows were regrouped by topic

    @staticmethod
    def of(block):
        """What a worker hands back for :meth:`add`."""
        return block.line0, block.lines, len(block)

    def add(self, info, offset: int = 0):
        """``info`` from :meth:`of` on a block whose lines are numbered from ``offset``."""
        line0, lines, n = info
        self.info.append((line0 + offset, None if lines is None else lines + offset))
        self.rows.append(self.rows[-1] + n)

    def __getitem__(self, i) -> int:
        i = int(self.order[i]) if self.order is not None else int(i)
        b = bisect.bisect_right(self.rows, i) - 1
        line0, lines = self.info[b]
        j = i - self.rows[b]
        return int(lines[j]) if lines is not None else line0 + j + 1


class TopicColumn:
    """Accumulates a topic column block by block as segments (topic index, row count)."""

    def __init__(self):
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.seg_topic: list[int] = []
        self.seg_len: list[int] = []

    @staticmethod
    def segments(block, f: int = 0):
        """The block's runs of equal topic ids: (names, lengths). Stateless (thread-safe)."""
        ids = fixed_bytes(block, f)
        words = ids.view(np.uint64).reshape(len(ids), -1)
        change = words[1:, 0] != words[:-1, 0]
        for k in range(1, words.shape[1]):
            change |= words[1:, k] != words[:-1, k]
        heads = np.flatnonzero(np.r_[True, change])
        lens = np.diff(np.r_[heads, len(ids)])
        return [h.decode("utf-8", "surrogateescape") for h in ids[heads].tolist()], lens.tolist()

    def add(self, segments):
        for name, ln in zip(*segments):
            t = self.index.get(name)
            if t is None:
                t = self.index[name] = len(self.names)
                self.names.append(name)
            if self.seg_topic and self.seg_topic[-1] == t:
                self.seg_len[-1] += ln
            else:
                self.seg_topic.append(t)
                self.seg_len.append(ln)

    def grouping(self):
        """(names, offsets, order): ``order`` is None when each topic is one contiguous
        segment, else the stable permutation that groups the rows by topic."""
        seg_topic = np.asarray(self.seg_topic, dtype=np.int64)
        seg_len = np.asarray(self.seg_len, dtype=np.int64)
        counts = np.bincount(seg_topic, weights=seg_len, minlength=len(self.names)).astype(np.int64)
        offsets = np.zeros(len(self.names) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        order = None
        if len(seg_topic) != len(self.names):
            order = np.argsort(np.repeat(seg_topic, seg_len), kind="stable")
        return self.names, offsets, order


def pad8(ids: np.ndarray) -> np.ndarray:
    """Widen an ``S`` array to a multiple of 8 bytes (NUL padding, values unchanged)."""
    w = ids.dtype.itemsize
    w8 = max(-(-w // 8) * 8, 8)
    return ids if w8 == w else ids.astype(f"S{w8}")


class Column:
    """A column filled block by block into one array sized from the file size (a final
    concatenation would touch every page of a second run-sized array)."""

    def __init__(self, file_size: int):
        self.file_size = file_size
        self.arr: np.ndarray | None = None
        self.n = 0

    def append(self, part: np.ndarray, part_bytes: int):
        if self.arr is None:
            guess = int(self.file_size / max(part_bytes, 1) * len(part) * 1.02) + 1024
            self.arr = np.empty(max(guess, len(part)), dtype=part.dtype)
        if part.dtype.itemsize > self.arr.dtype.itemsize:  # wider doc ids: re-widen
            wider = np.empty(len(self.arr), dtype=part.dtype)
            wider[: self.n] = self.arr[: self.n]
            self.arr = wider
        if self.n + len(part) > len(self.arr):
            bigger = np.empty(max(2 * len(self.arr), self.n + len(part)), dtype=self.arr.dtype)
            bigger[: self.n] = self.arr[: self.n]
            self.arr = bigger
        self.arr[self.n : self.n + len(part)] = part
        self.n += len(part)

    def result(self, empty: np.ndarray) -> np.ndarray:
        return empty if self.arr is None else self.arr[: self.n]
