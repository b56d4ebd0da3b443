"""One orchestration function per thing a user does. The command line (harness.cli), the Python
API (harness.api) and lab mode are adapters over these: argv or DataFrames in, a verb call, text
or DataFrames out. A verb takes typed values (paths, runs, qrels, policies from harness.policies),
returns a typed outcome, reports progress through ``on`` and never parses argv, prints or imports
pandas.

- ``verbs.plan``: what runs nothing: load (a config or a study), validate, plan_run and
  plan_study (the dry run); light beside the next two, so ``harness validate`` and every
  ``--dry-run`` load no execution
- ``verbs.run``: run (index, search, evaluate, compare, report), index, search (a config's runs
  into its output folder)
- ``verbs.study``: the same for a study (a config of several collections): run (each collection's
  report and the tables across them), index, search
- ``verbs.evaluate``: evaluate a run against qrels
- ``verbs.trec_eval``: trec_eval 9.0.8's command line and output (``harness trec_eval``)
- ``verbs.analyze``: the terms Anserini's analyzer for a language makes of a text (``harness analyze``)
- ``verbs.compare``: compare per-topic scores; compare_files (evaluate run files, then compare)
- ``verbs.query``: open an index and query it ad hoc (lab mode, ``harness.query``)
- ``verbs.similarity``: a similarity parsed from a user's text (every door's ``--similarity``; light,
  so the command line's parsers read it without the pipeline; the registry is harness.specs.models)
- ``verbs.fuse``: fuse run files into one (``harness fuse``, ``harness.fuse``; the stage is harness.fusion)
- ``verbs.reproduce``: an original experiment beside its reproduction, measured as repro_eval
  measures it (``harness reproduce``, ``harness.reproduce``)
- ``verbs.lab``: the course lab
- ``verbs.cache``: the run cache per index, and pruning the runs unused since a date (``harness cache``)
- ``verbs.judge``: what the judging page shows, prepared before its server starts (``harness judge``)
- ``verbs.system``: doctor, schema, the measure registry
"""
