# Sourced by the replica-set scripts: start members of one set of the
# mayfly binary $bin on 127.0.0.1, ports from $base up (member i: raft
# base+i, MongoDB base+10+i, RESP base+20+i, HTTP base+30+i), data and
# logs in $dir, pids appended to the array pids.

# start_member I PEERS starts member I of set rs0 with --peers PEERS.
start_member() {
	"$bin" serve --dir "$dir/m$1" --replica-set rs0 --raft-addr "127.0.0.1:$((base + $1))" --peers "$2" \
		--mongo-addr "127.0.0.1:$((base + 10 + $1))" --resp-addr "127.0.0.1:$((base + 20 + $1))" \
		--http-addr "127.0.0.1:$((base + 30 + $1))" --log-level warn 2>"$dir/m$1.log" &
	pids+=($!)
}

# find_primary sets primary to the member of 1..3 that answers ROLE as
# master, waiting up to 10 s, and fails the script if none does.
find_primary() {
	primary=
	for _ in $(seq 1 100); do
		for i in 1 2 3; do
			if redis-cli -p $((base + 20 + i)) ROLE 2>/dev/null | head -1 | grep -q master; then
				primary=$i
			fi
		done
		[ -n "$primary" ] && return 0
		sleep 0.1
	done
	echo "no primary" >&2
	exit 1
}
