// Package integration holds black-box tests: they build the real mayfly
// binary, start it on 127.0.0.1 with port 0 in a temporary data directory,
// and drive it with real clients (the MongoDB Go driver, go-redis, mongosh,
// redis-cli). The harness sub-package does the starting and stopping.
package integration
