#!/usr/bin/env bash
# Build the image under the name docker-compose.yml gives it: the base first (docker-base.sh:
# bootstrapped from the Debian mirror as harness-debian:<suite>, or Docker's debian:<suite>-slim
# without mmdebstrap), then `docker build` FROM it (--build-arg BASE).
#   scripts/docker-build.sh [docker build options...]
# The build uses the host's network (`--network host`: apt and pip reach the Debian mirror and
# the package index as the host does; the default build network has no DNS on some hosts) and
# the host's CA bundle for pip ($PIP_CERT, else $SSL_CERT_FILE, else Debian's bundle), so a
# proxy that intercepts TLS works; the bundle is used in the build stage only. Containers then
# run without any network.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(scripts/docker-base.sh)
image=$(sed -n 's/^[[:space:]]*image:[[:space:]]*\([^[:space:]]*\).*/\1/p' docker-compose.yml | head -1)
ca=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
trap 'rm -f .docker-ca.pem' EXIT
if [ -f "$ca" ]; then cp "$ca" .docker-ca.pem; fi
docker build --network host --build-arg BASE="$base" -t "$image" "$@" .
