package integration_test

import (
	"testing"
	"time"
)

// pollInterval is how often eventually asks again: the tests poll real
// processes (a server, a browser, a replica set), never a clock they could
// move themselves.
const pollInterval = 50 * time.Millisecond

// eventually polls cond every pollInterval until it holds, and fails the
// test if it has not within timeout.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("%s: %s", what, time.Since(start)) }()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(pollInterval)
	}
}
