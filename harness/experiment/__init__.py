"""Experiments: the plan (what is reused, by content hash), its execution, and the comparisons of
an experiment's runs. Rendering is ``harness.report``'s job.

Importing this package loads none of its modules: each is imported by name
(``harness.experiment.execute.run_experiment``, ``harness.experiment.plan.plan``), so a command
that plans (``harness run --dry-run``) or checks a config's topics (``harness validate``) loads
the plan, the run store and the sanity checks, not the execution, the executors and the fusion
they would run (bench/bench_import.py)."""
