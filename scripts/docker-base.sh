#!/usr/bin/env bash
# Make the Docker base image without a registry: bootstrap Debian from a Debian mirror with
# mmdebstrap and `docker import` it under exactly the tag the Dockerfile's FROM names
# (debian:trixie-slim), so `docker build` finds it locally and never pulls.
#   scripts/docker-base.sh [--force]
# A no-op when the engine already has that tag (pulled from a registry, or made here before),
# unless --force. Without mmdebstrap (macOS, Windows) it pulls the tag from the registry instead:
# Docker's debian:trixie-slim is made the same way from the same archive. The root file system is what Debian's own debian:trixie-slim is made of:
# the minbase variant (Essential + apt), with documentation, manuals and translations left out
# by dpkg path excludes that stay in the image, so later apt-get installs leave them out too.
# Environment:
#   DEBIAN_MIRROR           the Debian archive (default http://deb.debian.org/debian)
#   DEBIAN_SECURITY_MIRROR  the security archive (default http://deb.debian.org/debian-security;
#                           empty: none, for a site mirror without it)
#   HARNESS_CACHE           where the root file system tarball is kept between runs
#                           (default ${XDG_CACHE_HOME:-$HOME/.cache}/harness); a tarball older
#                           than 7 days, or made by another version of this script, is remade.
# Needs mmdebstrap (Debian package mmdebstrap) and a Docker engine (DOCKER_HOST is honoured).
set -euo pipefail
cd "$(dirname "$0")/.."

force=${1:-}
# The one external image the Dockerfile builds FROM (stages refer to each other by name).
stages=$(sed -n 's/^FROM[[:space:]].*[[:space:]][Aa][Ss][[:space:]]\+\([^[:space:]]\+\).*/\1/p' Dockerfile)
# (`scratch` is Docker's empty image, no base: the last stage starts from it.)
tag=$(sed -n 's/^FROM[[:space:]]\+\([^[:space:]]\+\).*/\1/p' Dockerfile | grep -vxF -f <(echo "$stages"; echo scratch) | sort -u)
if [ "$(echo "$tag" | wc -l)" != 1 ] || [ -z "$tag" ]; then
  echo "docker-base.sh: expected one external base in the Dockerfile's FROM lines, found: $tag" >&2
  exit 1
fi
case "$tag" in
  debian:trixie-slim) suite=trixie ;;
  *) echo "docker-base.sh: do not know how to bootstrap $tag (only debian:<suite>-slim)" >&2; exit 1 ;;
esac

if [ "$force" != "--force" ] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "docker-base.sh: $tag is already in the engine"
  exit 0
fi

if ! command -v mmdebstrap >/dev/null; then
  echo "docker-base.sh: mmdebstrap is not installed (Debian package mmdebstrap); pulling $tag" >&2
  exec docker pull "$tag"
fi

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR-http://deb.debian.org/debian-security}
cache=${HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harness}
key=$( (cat "$0"; echo "$tag $mirror $security") | cksum | cut -d' ' -f1)
tarball="$cache/docker-base-$suite-$key.tar"
mkdir -p "$cache"

if [ "$force" = "--force" ] || [ -z "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
  sources=("deb $mirror $suite main" "deb $mirror $suite-updates main")
  [ -z "$security" ] || sources+=("deb $security $suite-security main")
  echo "docker-base.sh: bootstrapping Debian $suite from $mirror (about a minute)"
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
    "$suite" "$tarball.part" "${sources[@]}"
  mv "$tarball.part" "$tarball"
  find "$cache" -name "docker-base-$suite-*.tar" ! -name "$(basename "$tarball")" -delete
else
  echo "docker-base.sh: reusing $tarball"
fi
docker import --change 'CMD ["bash"]' --message "mmdebstrap --variant=minbase $suite ($mirror)" \
  "$tarball" "$tag" >/dev/null
echo "docker-base.sh: tagged $tag"
