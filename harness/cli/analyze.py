"""`harness analyze TEXT --language CODE`: the terms Anserini's analyzer makes of a text, one a
line, over the analyze verb (harness.verbs.analyze)."""

from __future__ import annotations

import argparse

from harness import lazy
from harness.policies import DEFAULT_LANGUAGE, LANGUAGES

verbs_analyze = lazy.module("harness.verbs.analyze")


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    p = make(
        sub,
        "analyze",
        "print the terms Anserini's analyzer for a language makes of a text, one a line: "
        "what an index of that language stores and a query of it searches for",
        "  harness analyze 'Information retrieval models'   en: porter stemmer, stopwords removed\n"
        "  harness analyze 'Die Häuser sind schön' --language de\n",
        cmd_analyze,
    )
    p.add_argument("text", help="the text to analyse")
    p.add_argument(
        "--language",
        choices=tuple(LANGUAGES),
        default=DEFAULT_LANGUAGE,
        metavar="CODE",
        help=f"the text's language (default {DEFAULT_LANGUAGE}; codes: {' '.join(LANGUAGES)})",
    )


def cmd_analyze(args: argparse.Namespace) -> int:
    for term in verbs_analyze.analyze(args.text, args.language):
        print(term)
    return 0
