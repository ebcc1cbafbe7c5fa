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
# FRESH_STRESS=1: the last run goes beside Debian's stress-ng taking both cores (--cpu 2).
runs=${FRESH_TEST_RUNS:-1}
for run in $(seq 1 "$runs"); do
  stress=""
  if [ "$run" -eq "$runs" ] && [ "${FRESH_STRESS:-0}" = 1 ]; then
    command -v stress-ng >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null
    stress-ng --cpu 2 --quiet &
    stress=$!
    echo "--- npm test (run $run of $runs) beside stress-ng --cpu 2 (pid $stress)"
  fi
  echo "--- npm test (run $run of $runs)"
  started=$SECONDS
  status=0
  npm test 2>&1 | tee /tmp/npm-test.log || status=$?
  echo "--- npm test (run $run of $runs): exit $status in $((SECONDS - started)) s"
  if [ -n "$stress" ]; then kill "$stress" 2>/dev/null || true; fi
  [ "$status" -eq 0 ] || exit "$status"
  grep -qE '^tests: [1-9][0-9]* passed, 0 failed' /tmp/npm-test.log || { echo "no test ran"; exit 1; }
done
