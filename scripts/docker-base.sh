#!/usr/bin/env bash
# The Docker base image, without a registry: bootstrap Debian from a Debian mirror with
# mmdebstrap, `docker import` it under a name of our own (harness-debian:<suite>), and print
# that name, which scripts/docker-build.sh gives the Dockerfile as BASE. Never under Debian's own
# name: an image made here is not Docker's debian:trixie-slim, and must not stand in for it.
#   scripts/docker-base.sh [--force]        (prints the base's name on stdout; the rest on stderr)
# The Dockerfile's `ARG BASE=debian:<suite>-slim` names the suite. Reuses the image when the
# engine already has it (made before), unless --force. Without mmdebstrap (macOS, Windows) it
# uses Docker's debian:<suite>-slim instead (pulled unless the engine has it), which is made the
# same way from the same archive: the minbase variant (Essential + apt), with documentation,
# manuals and translations left out by dpkg path excludes that stay in the image, so later
# apt-get installs leave them out too.
# Environment:
#   DEBIAN_MIRROR           the Debian archive (default http://deb.debian.org/debian)
#   DEBIAN_SECURITY_MIRROR  the security archive (default http://deb.debian.org/debian-security;
#                           empty: none, for a site mirror without it)
#   HARNESS_CACHE           where the root file system tarball is kept between runs
#                           (default ${XDG_CACHE_HOME:-$HOME/.cache}/harness); a tarball older
#                           than 7 days, or made by another version of this script, is remade,
#                           and so is the image made from it.
# Needs mmdebstrap (Debian package mmdebstrap) and a Docker engine (DOCKER_HOST is honoured).
set -euo pipefail
cd "$(dirname "$0")/.."

force=${1:-}
say() { echo "docker-base.sh: $*" >&2; }
official=$(sed -n 's/^ARG[[:space:]]\+BASE=\([^[:space:]]\+\).*/\1/p' Dockerfile)
case "$official" in
  debian:*-slim) suite=${official#debian:}; suite=${suite%-slim} ;;
  *) say "do not know how to bootstrap the Dockerfile's ARG BASE=$official (only debian:<suite>-slim)"; exit 1 ;;
esac

if ! command -v mmdebstrap >/dev/null; then
  say "mmdebstrap is not installed (Debian package mmdebstrap): using Docker's $official"
  docker image inspect "$official" >/dev/null 2>&1 || docker pull "$official" >&2
  echo "$official"
  exit 0
fi

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR-http://deb.debian.org/debian-security}
cache=${HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harness}
key=$( (cat "$0"; echo "$suite $mirror $security") | cksum | cut -d' ' -f1)
tarball="$cache/docker-base-$suite-$key.tar"
tag="harness-debian:$suite"
mkdir -p "$cache"

if [ "$force" = "--force" ] || [ -z "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
  sources=("deb $mirror $suite main" "deb $mirror $suite-updates main")
  [ -z "$security" ] || sources+=("deb $security $suite-security main")
  say "bootstrapping Debian $suite from $mirror (about a minute)"
  mmdebstrap --quiet --variant=minbase --format=tar \
    --aptopt='APT::Install-Recommends "false"' \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log' \
    "$suite" "$tarball.part" "${sources[@]}" >&2
  mv "$tarball.part" "$tarball"
  find "$cache" -name "docker-base-$suite-*.tar" ! -name "$(basename "$tarball")" -delete
elif [ "$(docker image inspect --format '{{.Comment}}' "$tag" 2>/dev/null)" = "$(basename "$tarball")" ]; then
  say "$tag is already in the engine ($(basename "$tarball"))"
  echo "$tag"
  exit 0
else
  say "reusing $tarball"
fi
# The image's comment names the tarball it was made from, so a remade tarball remakes the image.
docker import --change 'CMD ["bash"]' --message "$(basename "$tarball")" "$tarball" "$tag" >/dev/null
say "tagged $tag (mmdebstrap --variant=minbase $suite, $mirror)"
echo "$tag"
