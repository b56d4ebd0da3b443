"""trec_eval's -Z: per-topic values as z-scores against a file of each topic's and measure's
mean and standard deviation (its te_convert_to_zscore), for `harness trec_eval -Z`."""

from __future__ import annotations

from harness.errors import DataError
from harness.formats.hygiene import numbered_lines

__all__ = ["MISSING_ZSCORE", "parse_zscores", "zscore"]

MISSING_ZSCORE = -1000000.0  # trec_eval's MISSING_ZSCORE_VALUE


def parse_zscores(path) -> dict[tuple[str, str], tuple[float, float]]:
    """-Z's file: lines ``qid measure mean stddev`` (trec_eval's measure names with their
    cut-offs: ``P_10``, ``map``) -> {(qid, measure): (mean, stddev)}, read with the harness's
    line reader (a regular UTF-8 file, a leading BOM dropped, lines of bounded length). A line
    with another number of fields, or a mean or stddev that is not a number, is a DataError
    naming the line (trec_eval reads such numbers with atof, as 0); an empty file too. Of a
    pair given twice the first counts (trec_eval finds one of them by binary search)."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for n, line in numbered_lines(path):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise DataError(f"{path}:{n}", f"expected 'qid measure mean stddev', got {len(fields)} field(s)")
        try:
            mean, std = float(fields[2]), float(fields[3])
        except ValueError:
            raise DataError(
                f"{path}:{n}", f"mean and stddev must be numbers (got {fields[2]!r} {fields[3]!r})"
            ) from None
        out.setdefault((fields[0], fields[1]), (mean, std))
    if not out:
        raise DataError(path, "the z-score file has no lines")
    return out


def zscore(zscores: dict, qid: str, name: str, value: float) -> float:
    """trec_eval's te_convert_to_zscore for one value: (value - mean) / stddev; with a stddev
    of 0, 0 when the value is the mean; MISSING_ZSCORE for a topic, or a measure of a topic,
    the file lacks, or a value off a stddev of 0."""
    ms = zscores.get((qid, name))
    if ms is None:
        return MISSING_ZSCORE
    mean, std = ms
    if std:
        return (value - mean) / std
    return 0.0 if value == mean else MISSING_ZSCORE
