#!/usr/bin/env bash
# Runs all of mayfly's tests on a fresh machine of this kind: installs what the
# tests need (Go modules, redis-tools and redis-server from Debian, mongosh,
# ioredis, the Node MongoDB driver, mongoose and the Redis libraries from
# npm), checks
# formatting, vet and staticcheck, then runs every Go test in random order,
# the core packages again under the race detector with the invariants tag,
# and a short fuzz smoke of every fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

step "tools"
# Free disk, for the record: a full run needs a few GiB (module and build
# caches, test binaries, the tests' data directories).
df -h / "${TMPDIR:-/tmp}" | sort -u
go mod download
# redis-cli replays the seed's sessions; redis-server is the peer the bench
# package's end-to-end test drives.
if ! command -v redis-cli >/dev/null 2>&1 || ! command -v redis-server >/dev/null 2>&1; then
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-tools redis-server >/dev/null
fi
redis-cli --version
redis-server --version
# Chromium drives the web console's browser test (integration/console_test.go).
if ! command -v chromium >/dev/null 2>&1; then
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
chromium --version
if [ ! -x .tools/node_modules/.bin/mongosh ]; then
	mkdir -p .tools
	npm install --prefix .tools --no-audit --no-fund --loglevel=error mongosh@2 >/dev/null
fi
echo "mongosh $(.tools/node_modules/.bin/mongosh --version 2>/dev/null | tail -n 1)"
# ioredis, at the version integration/testdata/ioredis/package.json pins, for
# the ioredis black-box test, which finds it through MAYFLY_IOREDIS_MODULES.
# Installed once: with the same package.json already there, no network.
ioredis_dir=.tools/ioredis
if ! cmp -s integration/testdata/ioredis/package.json "$ioredis_dir/package.json" ||
	[ ! -f "$ioredis_dir/node_modules/ioredis/package.json" ]; then
	mkdir -p "$ioredis_dir"
	cp integration/testdata/ioredis/package.json "$ioredis_dir/package.json"
	npm install --prefix "$ioredis_dir" --no-audit --no-fund --no-package-lock --loglevel=error >/dev/null
fi
export MAYFLY_IOREDIS_MODULES="$PWD/$ioredis_dir/node_modules"
echo "ioredis $(node -p 'require(process.argv[1]).version' "$MAYFLY_IOREDIS_MODULES/ioredis/package.json")"
# The libraries applications put in front of Redis (BullMQ,
# rate-limiter-flexible, Redlock, connect-redis with express-session), at the
# versions integration/testdata/redislibs/package.json pins, found by their
# black-box tests through MAYFLY_REDISLIBS_MODULES; installed again only when
# that package.json changed.
redislibs_dir=.tools/redislibs
if ! cmp -s integration/testdata/redislibs/package.json "$redislibs_dir/package.json" ||
	[ ! -f "$redislibs_dir/node_modules/bullmq/package.json" ]; then
	mkdir -p "$redislibs_dir"
	cp integration/testdata/redislibs/package.json "$redislibs_dir/package.json"
	npm install --prefix "$redislibs_dir" --no-audit --no-fund --no-package-lock --loglevel=error >/dev/null
fi
export MAYFLY_REDISLIBS_MODULES="$PWD/$redislibs_dir/node_modules"
for lib in bullmq rate-limiter-flexible redlock connect-redis express-session redis; do
	echo "$lib $(node -p 'require(process.argv[1]).version' "$MAYFLY_REDISLIBS_MODULES/$lib/package.json")"
done

# The Node MongoDB driver and mongoose, at the versions
# integration/testdata/mongonode/package.json pins, for their black-box tests
# (found through MAYFLY_MONGONODE_MODULES); installed again only when that
# package.json changed.
mongonode_dir=.tools/mongonode
if ! cmp -s integration/testdata/mongonode/package.json "$mongonode_dir/package.json" ||
	[ ! -f "$mongonode_dir/node_modules/mongoose/package.json" ]; then
	mkdir -p "$mongonode_dir"
	cp integration/testdata/mongonode/package.json "$mongonode_dir/package.json"
	npm install --prefix "$mongonode_dir" --no-audit --no-fund --no-package-lock --loglevel=error >/dev/null
fi
export MAYFLY_MONGONODE_MODULES="$PWD/$mongonode_dir/node_modules"
for lib in mongodb mongoose; do
	echo "$lib $(node -p 'require(process.argv[1]).version' "$MAYFLY_MONGONODE_MODULES/$lib/package.json")"
done

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

step "staticcheck"
go tool staticcheck ./...

step "go test"
# -shuffle=on runs each package's tests in a random order (the seed is
# printed, and -shuffle=SEED repeats it), so no test depends on another's
# leftovers.
go test -count=1 -shuffle=on -timeout 15m ./...

step "go test -race -tags invariants"
# The race build shares nothing with the one above, so its cache goes
# first: the run's peak disk use stays one build's worth.
go clean -cache
# The packages that hold locks, background goroutines and on-disk invariants,
# again under the race detector with the expensive consistency checks
# compiled in (internal/invariants). -short: a test that repeats
# single-goroutine cases many times (the step above ran them all) runs
# fewer of them here, where each costs many times more and finds no race;
# rapid's properties draw a fifth of their cases (rapid's own rule for
# -short).
go test -count=1 -shuffle=on -short -race -tags invariants -timeout 15m \
	./internal/storage/... ./internal/expiry/... ./internal/kv/... \
	./internal/docdb/... ./internal/wire/... ./internal/replica/...

step "fuzz smoke"
go clean -cache
# Every fuzz target, briefly, as a fuzzer (go test above already ran their
# seed corpora); `make fuzz` runs them for longer.
FUZZTIME=2s bash scripts/fuzz-smoke.sh
