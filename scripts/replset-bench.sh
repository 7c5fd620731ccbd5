#!/usr/bin/env bash
# Replicated against standalone throughput, as BENCHMARKS.md records it:
# starts a three-member set and a standalone of the mayfly binary BIN on
# 127.0.0.1 (ports from BASE up), runs `mayfly bench kv doc` against the
# primary and the standalone, and stops them. Extra arguments go to bench.
#
#   scripts/replset-bench.sh BIN BASE [bench flags...]
set -euo pipefail
bin=$1 base=$2
shift 2
dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
# shellcheck source=replset-members.sh
. "$(dirname "$0")/replset-members.sh"
peers="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
for i in 1 2 3; do start_member "$i" "$peers"; done
"$bin" serve --dir "$dir/sa" --mongo-addr "127.0.0.1:$((base + 10))" --resp-addr "127.0.0.1:$((base + 20))" \
	--http-addr "127.0.0.1:$((base + 30))" --log-level warn 2>"$dir/sa.log" &
pids+=($!)
find_primary
for _ in $(seq 1 100); do
	redis-cli -p $((base + 20)) PING >/dev/null 2>&1 && break
	sleep 0.1
done
echo "primary: member $primary (pids ${pids[*]})" >&2
"$bin" bench kv doc \
	--resp-addr "replicated=127.0.0.1:$((base + 20 + primary))" --resp-addr "standalone=127.0.0.1:$((base + 20))" \
	--mongo-uri "replicated=mongodb://127.0.0.1:$((base + 10 + primary))/" --mongo-uri "standalone=mongodb://127.0.0.1:$((base + 10))/" \
	--baseline replicated "$@"
