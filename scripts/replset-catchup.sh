#!/usr/bin/env bash
# Snapshot catch-up of a new member, as BENCHMARKS.md records it: starts a
# three-member set of the mayfly binary BIN on 127.0.0.1 (ports from BASE
# up) and a fourth, empty member, then runs scripts/replset-catchup (which
# loads the documents, waits for the primary's raft snapshot, adds the
# fourth member and times its catch-up). Extra arguments go to it (e.g.
# --docs 1000000). The data directories are removed at the end.
#
#   scripts/replset-catchup.sh BIN BASE [replset-catchup flags...]
set -euo pipefail
bin=$1 base=$2
shift 2
dir=$(mktemp -d)
pids=()
cleanup() {
	tail -5 "$dir"/m4.log >&2 || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
# shellcheck source=replset-members.sh
. "$(dirname "$0")/replset-members.sh"
peers="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
# The fourth member starts as the documentation says a new member does:
# with --replica-set and its own --raft-addr only.
for i in 1 2 3; do start_member "$i" "$peers"; done
start_member 4 "127.0.0.1:$((base + 4))"
find_primary
cd "$(dirname "$0")/.."
go run ./scripts/replset-catchup --primary "mongodb://127.0.0.1:$((base + 10 + primary))/?directConnection=true" \
	--admin "http://127.0.0.1:$((base + 30 + primary))" --add "127.0.0.1:$((base + 4))" \
	--member "127.0.0.1:$((base + 14))" --snapshot-dir "$dir/m$primary/raft-snapshots" "$@"
tail -5 "$dir"/m4.log >&2
du -sh "$dir"/m* >&2
