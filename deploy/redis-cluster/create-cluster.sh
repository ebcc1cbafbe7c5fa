#!/bin/sh
# create-cluster.sh HOST:PORT… — joins six or more empty cluster-mode Redis nodes into one Redis
# Cluster, one replica per primary (`redis-cli --cluster create`), once: nodes that already know
# each other are left as they are, so it can run on every `docker compose up`.
# Each HOST is resolved first: CLUSTER MEET takes addresses, and some redis-cli versions pass a
# name on as it is (redis/redis#11148). The nodes still announce their names to clients
# (--cluster-announce-hostname in docker-compose.cluster.yml). With a password,
# set REDISCLI_AUTH (redis-cli reads it; it is not put on a command line).
set -eu

[ "$#" -ge 6 ] || { echo "create-cluster.sh: six nodes or more (3 primaries, a replica each), got $#" >&2; exit 2; }

first=$1
known=$(redis-cli -h "${first%:*}" -p "${first##*:}" cluster info | tr -d '\r' | sed -n 's/^cluster_known_nodes://p')
if [ "${known:-0}" -gt 1 ]; then
  echo "create-cluster.sh: $first already knows $known nodes: nothing to do"
  exit 0
fi

addresses=
for node in "$@"; do
  host=${node%:*}
  ip=$(getent hosts "$host" | awk '{ print $1; exit }')
  [ -n "$ip" ] || { echo "create-cluster.sh: cannot resolve $host" >&2; exit 1; }
  addresses="$addresses $ip:${node##*:}"
done
# shellcheck disable=SC2086 # one word per node
redis-cli --cluster create $addresses --cluster-replicas 1 --cluster-yes
