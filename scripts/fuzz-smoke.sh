#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time each (FUZZTIME,
# default 5s), so that a change that makes a parser panic on its seed corpus
# or on nearby inputs fails fast. Targets are found, not listed: every
# `func FuzzX(f *testing.F)` in a _test.go file. A failing input is saved by
# `go test` under the package's testdata/fuzz/FuzzX/ and becomes a seed.
# `make fuzz` runs the same for longer (FUZZTIME=1m by default).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-5s}"
failed=()
count=0
while IFS=: read -r file name; do
	pkg="./$(dirname "$file")"
	count=$((count + 1))
	printf '== %s %s (%s)\n' "$pkg" "$name" "$fuzztime"
	# A run that fails without writing a failing input (the fuzzing engine
	# itself reporting "context deadline exceeded" when its time ends while
	# a worker is busy) is run once more; a failing input fails at once.
	for attempt in 1 2; do
		out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" 2>&1) && { printf '%s\n' "$out"; break; }
		printf '%s\n' "$out"
		if [ "$attempt" = 2 ] || grep -q 'Failing input written' <<<"$out"; then
			failed+=("$pkg $name")
			break
		fi
		echo "no failing input was written; running $name once more"
	done
done < <(grep -rho --include='*_test.go' -E '^func (Fuzz[A-Za-z0-9_]*)\(' --exclude-dir=.tools --exclude-dir=node_modules --exclude-dir=.git -H . |
	sed -E 's/^\.\/(.*):func (Fuzz[A-Za-z0-9_]*)\($/\1:\2/' | sort -u)

if [ "$count" -eq 0 ]; then
	echo "no fuzz targets found" >&2
	exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
	printf 'fuzz target failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: $count targets passed for $fuzztime each"
