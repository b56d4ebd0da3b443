"""index.language in a config, without Java: the codes are Anserini 2.3.0's, an unknown one is
an error listing them, and the English-only options are refused under another language."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.config import load_config
from harness.errors import ConfigError
from harness.experiment.plan import plan

REPO = Path(__file__).resolve().parents[1]
BASE = f"""\
name: t
collection: {{path: {REPO / "corpora"}, format: text-folder}}
topics: {REPO / "topics" / "demo.tsv"}
runs:
  - bm25: {{k1: 0.9, b: 0.4}}
output: out
"""


def problems(tmp_path: Path, index: str) -> list[str]:
    (tmp_path / "c.yaml").write_text(BASE + f"index: {index}\n")
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "c.yaml")
    return [str(p).removeprefix(f"{tmp_path}/") for p in e.value.problems]


def test_unknown_code_lists_the_known_ones(tmp_path):
    (msg,) = problems(tmp_path, "{language: xx}")
    assert msg.startswith("c.yaml:7: index.language: must be one of en, ar, bn, da, de")
    assert "(got 'xx')" in msg


@pytest.mark.parametrize("key", ["stemmer: krovetz", "stopwords: false"])
def test_english_options_under_another_language_are_refused(tmp_path, key):
    (msg,) = problems(tmp_path, f"{{language: de, {key}}}")
    name = key.split(":")[0]
    assert msg == (
        f"c.yaml:7: index.{name}: applies to English alone: Anserini analyses de with GermanAnalyzer "
        f"and ignores {name}; remove it (or set index.language: en)"
    )


def test_language_reaches_the_index_options_and_only_then_the_fingerprint(tmp_path):
    (tmp_path / "c.yaml").write_text(BASE + "index: {language: ru}\n")
    cfg = load_config(tmp_path / "c.yaml")
    assert cfg.language == "ru"
    assert plan(cfg).options.language == "ru"
    (tmp_path / "c.yaml").write_text(BASE)
    assert load_config(tmp_path / "c.yaml").language == "en"
