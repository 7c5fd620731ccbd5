#!/usr/bin/env bash
# Replicated against standalone throughput, as BENCHMARKS.md records it:
# starts a three-member set and a standalone of the mayfly binary BIN on
# 127.0.0.1 (ports from BASE up), runs `mayfly bench kv doc` against the
# primary and the standalone, and stops them. Extra arguments go to bench.
#
#   scripts/replset-bench.sh BIN BASE [bench flags...]
#
# With CPU_QUOTA=C (cores, for example 0.5), each member and the standalone
# runs in a CPU cgroup of its own capped at C cores, as if each had a
# machine of its own: the set is then measured against a standalone with as
# much CPU as each of its members, instead of three members sharing the
# standalone's cores. Needs root and cgroup v1's cpu controller or cgroup
# v2 with cpu enabled at the root.
set -euo pipefail
bin=$1 base=$2
shift 2
dir=$(mktemp -d)
pids=()
groups=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for g in "${groups[@]}"; do rmdir "$g" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

# limit_cpu PID NAME moves process PID into a cgroup of its own capped at
# CPU_QUOTA cores, in periods of 10 ms so that the cap does not stall a
# request for long.
limit_cpu() {
	local g quota
	quota=$(awk -v c="$CPU_QUOTA" 'BEGIN { printf "%d", c * 10000 }')
	if grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		g=/sys/fs/cgroup/mayfly-bench-$base-$2
		mkdir -p "$g"
		echo "$quota 10000" >"$g/cpu.max"
	else
		g=/sys/fs/cgroup/cpu/mayfly-bench-$base-$2
		mkdir -p "$g"
		echo 10000 >"$g/cpu.cfs_period_us"
		echo "$quota" >"$g/cpu.cfs_quota_us"
	fi
	groups+=("$g")
	echo "$1" >"$g/cgroup.procs"
}
# shellcheck source=replset-members.sh
. "$(dirname "$0")/replset-members.sh"
peers="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
for i in 1 2 3; do start_member "$i" "$peers"; done
"$bin" serve --dir "$dir/sa" --mongo-addr "127.0.0.1:$((base + 10))" --resp-addr "127.0.0.1:$((base + 20))" \
	--http-addr "127.0.0.1:$((base + 30))" --log-level warn 2>"$dir/sa.log" &
pids+=($!)
if [ -n "${CPU_QUOTA:-}" ]; then
	for i in 1 2 3; do limit_cpu "${pids[$((i - 1))]}" "m$i"; done
	limit_cpu "${pids[3]}" sa
fi
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
