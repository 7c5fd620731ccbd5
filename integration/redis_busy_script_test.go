package integration_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisBusyScript runs a looping script against the real binary: past
// busy-reply-threshold another client gets BUSY instead of hanging,
// SCRIPT KILL ends the script and the server serves again; then a second
// looping script does not keep SIGTERM from stopping the server.
func TestRedisBusyScript(t *testing.T) {
	s := harness.Start(t, "--shutdown-timeout", "200ms")
	opts := func() *redis.Options {
		return &redis.Options{Addr: s.RespAddr, MaxRetries: -1, ReadTimeout: 10 * time.Second, PoolSize: 1}
	}
	looper, other := redis.NewClient(opts()), redis.NewClient(opts())
	t.Cleanup(func() { looper.Close(); other.Close() })
	ctx := t.Context()
	if err := other.ConfigSet(ctx, "busy-reply-threshold", "50").Err(); err != nil {
		t.Fatal(err)
	}
	if err := looper.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() { res <- looper.Eval(context.Background(), "while true do end", nil).Err() }()
	const busy = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Before the script runs GET answers; once it runs, GET waits
		// for the threshold and gets BUSY.
		err := other.Get(ctx, "k").Err()
		if err != nil && err.Error() == busy {
			break
		}
		if err != nil && err != redis.Nil {
			t.Fatalf("GET while the script loops: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no BUSY while a script loops")
		}
	}
	if err := other.ScriptKill(ctx).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-res; err == nil || err.Error() != "ERR Script killed by user with SCRIPT KILL..." {
		t.Fatalf("the killed script's caller got %v", err)
	}
	if err := other.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET after SCRIPT KILL: %v", err)
	}
	if v, err := looper.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET after SCRIPT KILL: %q %v", v, err)
	}

	go func() { res <- looper.Eval(context.Background(), "while true do end", nil).Err() }()
	for {
		if err := other.Get(ctx, "k").Err(); err != nil && err.Error() == busy {
			break
		}
	}
	stop, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The process exits (with an error: the shutdown's deadline passed,
	// cancelling the script) instead of hanging.
	if err := s.Stop(stop); errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("SIGTERM with a looping script: %v", err)
	}
	if err := <-res; err == nil {
		t.Fatal("the looping script's caller got no error when the server stopped")
	}
}
