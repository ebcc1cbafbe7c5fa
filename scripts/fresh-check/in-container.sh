#!/usr/bin/env bash
# Inside the fresh container (scripts/fresh-check.sh): a clone of the repository, the default
# ports taken by other programs, then the README's two quick-start commands verbatim.
set -euo pipefail
mkdir /repo && tar -xf /fresh/repo.tar -C /repo && cd /repo
node /fresh/take-ports.js 6379 5672 4222 5432 1883 &
# The machine's own set-up, not the quick start's: npm trusts the CA bundle it was given.
if [ -n "${FRESH_CA:-}" ]; then npm config set --global cafile "$FRESH_CA"; fi
echo "--- in the container: $(node --version), npm $(npm --version), $(. /etc/os-release && echo "$PRETTY_NAME")"

echo "--- npm ci && npm run demo"
started=$SECONDS
npm ci && npm run demo
echo "--- npm ci && npm run demo: exit 0 in $((SECONDS - started)) s"

# FRESH_TEST_RUNS (default 1): how many times npm test runs in a row on the same fresh machine.
runs=${FRESH_TEST_RUNS:-1}
for run in $(seq 1 "$runs"); do
  echo "--- npm test (run $run of $runs)"
  started=$SECONDS
  status=0
  npm test 2>&1 | tee /tmp/npm-test.log || status=$?
  echo "--- npm test (run $run of $runs): exit $status in $((SECONDS - started)) s"
  [ "$status" -eq 0 ] || exit "$status"
  grep -qE '^tests: [1-9][0-9]* passed, 0 failed' /tmp/npm-test.log || { echo "no test ran"; exit 1; }
done
