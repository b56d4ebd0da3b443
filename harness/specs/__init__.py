"""The vocabulary every floor speaks, as values: the bottom of the house above the ground floor
(it imports nothing of harness but policies and errors, and no numpy, so the command line's
parsers, the config's loader and schema, the engine and the report all read one table).

``params`` (ParamSpec: one parameter, checked as Java will see it; how values are written),
``models`` (the registry: each model and query expansion with its parameters, its formula and what
the Java side builds; Anserini's presets and aliases), ``similarity`` (Similarity: the grammar
``model(k=v,...)+expansion(k=v,...)``), ``identity`` (a run's identity: searched, tuned, from a
file, fused, each with one canonical text), ``names`` (run names and the files they name) and
``sweeps`` (a config's runs grouped by family).
"""
