"""`harness doctor` (versions, and whether the JVM starts) and `harness schema` (the JSON Schema of
configs), over the system verb (harness.verbs.system)."""

from __future__ import annotations

import json

from harness import lazy

verbs_system = lazy.module("harness.verbs.system")


def add_parser(sub, make) -> None:
    """The subcommands, made by ``make`` (harness.cli.flags.command)."""
    make(sub, "doctor", "print versions and check that the JVM starts", "  harness doctor\n", cmd_doctor)
    make(
        sub,
        "schema",
        "print the JSON Schema of experiment configs (for editors: completion and checking)",
        "  harness schema > configs/harness.schema.json\n"
        "  then start a config with: # yaml-language-server: $schema=harness.schema.json\n",
        cmd_schema,
    )


def cmd_doctor(args) -> int:
    report = verbs_system.doctor()
    for k, v in report.versions.items():
        print(f"{k:10} {v}")
    print(f"{'jvm':10} {report.jvm}")
    return 0 if report.ok else 3


def cmd_schema(args) -> int:
    print(json.dumps(verbs_system.schema(), indent=2))
    return 0
