# The two commands of the README: `make demo` and `make test`. Each does all set-up first.
.PHONY: demo test test-quick lint setup setup-dev java bench docker docker-test clean

demo: setup
	.venv/bin/harness run configs/demo.yaml

# Whole test modules spread over the cores (pytest-xdist; tests/conftest.py starts the longest
# first), the 20 slowest printed; scripts/pytest-tidy gives pytest a base folder of its own and
# removes it afterwards, so a run leaves nothing under /tmp.
PYTEST_XDIST = -n auto --dist loadfile --no-loadscope-reorder

test: setup-dev lint
	scripts/pytest-tidy -q $(PYTEST_XDIST) --durations=20

# The fast inner loop (HARNESS_TEST_QUICK, tests/conftest.py): every test that needs no JVM,
# browser, Dask cluster, Docker or minutes (its markers, pyproject.toml, are QUICK_LEAVES_OUT),
# property tests with a third of their examples. The bogus JVM option makes an unmarked test
# that starts Java fail at once instead of passing slowly.
test-quick: setup-dev
	HARNESS_TEST_QUICK=1 HARNESS_JAVA_OPTS=-Xno-such-option scripts/pytest-tidy -q $(PYTEST_XDIST)

# Style, layering and types: ruff (lint + format check), the import-linter contracts and mypy over
# harness/ (its settings in pyproject.toml).
lint: setup-dev
	.venv/bin/ruff check harness tests bench scripts
	.venv/bin/ruff format --check harness tests bench scripts
	.venv/bin/lint-imports
	.venv/bin/mypy

setup:
	scripts/setup.sh

setup-dev:
	scripts/setup.sh --dev

# The benchmarks (each prints ratios against the reference tools or paths; see docs/performance.md and docs/deployment.md;
# bench_dense.py compiles its Java reference loop with ecj, Debian package ecj).
bench: setup-dev
	.venv/bin/python -m pip install --disable-pip-version-check -q -r requirements-bench.txt
	.venv/bin/python bench/bench_search.py
	.venv/bin/python bench/bench_eval.py --sizes 1M,10M
	.venv/bin/python bench/bench_stats.py
	.venv/bin/python bench/bench_tukey.py
	.venv/bin/python bench/bench_power.py
	.venv/bin/python bench/bench_e2e.py
	.venv/bin/python bench/bench_scale.py
	.venv/bin/python bench/bench_dense.py

# The Docker image (docs/deployment.md "Docker"): the base bootstrapped from the Debian mirror when the
# engine lacks it, then `docker build` with the host's network.
docker:
	scripts/docker-build.sh

# Builds the image (with its own dockerd when no engine is running) and checks it against a
# local run: scripts/docker-test.sh. CI runs it after `make test`.
docker-test: setup-dev
	scripts/docker-test.sh

# Rebuild the small Java search helper (needs the Eclipse compiler `ecj`, Debian package ecj).
java: setup
	.venv/bin/python scripts/build_java.py

clean:
	rm -rf .venv indexes/*/ reports/
