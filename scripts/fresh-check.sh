#!/usr/bin/env bash
# npm run fresh-check: the README's quick start, verbatim, on a fresh machine — a container from
# a bare Debian bookworm + Node image (the image check's base, scripts/image-check/base-images.sh)
# on podman's bridge network (the registries answer, none of this machine's servers do), as root,
# with ports 6379, 5672, 4222, 5432 and 1883 taken by other programs. It runs the committed tree
# (git archive HEAD, what a clone has) and fails on any non-zero exit or a test run with no test.
#
# FRESH_NODE_MAJOR (default 20, the oldest Node the product supports) picks the Node of the image;
# FRESH_TEST_RUNS (default 1) runs npm test that many times in a row in the same container;
# FRESH_STRESS=1 runs the last of them beside stress-ng --cpu 2 (both cores taken).
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_IMAGE=localhost/svcws-base:bookworm
NODE_MAJOR=${FRESH_NODE_MAJOR:-20}
NODE_IMAGE=localhost/svcws-node:$NODE_MAJOR
PODMAN_RUN=(--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
name="svcws-fresh-$$"

step() { printf -- '--- fresh check: %s\n' "$*"; }
fail() { printf 'fresh check FAILED: %s\n' "$*" >&2; exit 1; }

for tool in podman runc debootstrap git; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (npx tsx scripts/services/services-cli.ts install --ci)"
done
work=$(mktemp -d)
trap 'podman rm -f -t 0 "$name" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# shellcheck source=scripts/image-check/base-images.sh
source scripts/image-check/base-images.sh
ensure_node_image

git archive --format=tar HEAD >"$work/repo.tar"
cp scripts/fresh-check/in-container.sh scripts/fresh-check/take-ports.js "$work/"
ca=()
# The registries may be reached through a TLS-inspecting proxy: npm inside trusts the host's bundle,
# set in the container's global npmrc as on this machine (an environment variable would not reach
# an npm that a test runs with a user's clean environment).
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  ca=(-v /etc/ssl/certs/ca-certificates.crt:/etc/host-ca.crt:ro -e FRESH_CA=/etc/host-ca.crt)
fi
# A fresh machine's root may mount (the spool's full-disk test makes a small tmpfs); a container's
# root needs the capability for that.
step "README quick start in $NODE_IMAGE on podman's bridge network ($(git rev-parse --short HEAD))"
started=$SECONDS
podman run --rm --name "$name" --network bridge "${PODMAN_RUN[@]}" "${ca[@]}" --cap-add SYS_ADMIN \
  -e FRESH_TEST_RUNS="${FRESH_TEST_RUNS:-1}" -e FRESH_STRESS="${FRESH_STRESS:-0}" -v "$work:/fresh:ro" "$NODE_IMAGE" bash /fresh/in-container.sh ||
  fail "the quick start failed in a fresh container (output above)"
step "passed in $((SECONDS - started)) s"
