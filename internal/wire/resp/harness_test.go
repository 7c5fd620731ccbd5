package resp_test

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
	"github.com/mayfly/mayfly/internal/wire/resp"
)

// eventLoopEnv names the environment variable that, set to 1, runs every
// test server with Options.EventLoop, so that the suite runs on the event
// loop (integration/harness reads the same one).
const eventLoopEnv = "MAYFLY_TEST_RESP_EVENT_LOOP"

// clock is the fake clock of kv: tests move time by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is one in-process server on 127.0.0.1:0.
type env struct {
	t     *testing.T
	srv   *resp.Server
	kv    *kv.Store
	clock *clock
	addr  string
}

// start0 is the fixed start of the fake clock: 2023-11-14T22:13:20Z.
const start0 = 1_700_000_000_000

func newEnv(t *testing.T, mutate ...func(*resp.Options)) *env {
	t.Helper()
	return startEnv(t, t, mutate...)
}

// newEnvB starts a server for a benchmark.
func newEnvB(b *testing.B) *env { return startEnv(b, nil) }

func startEnv(t testing.TB, tt *testing.T, mutate ...func(*resp.Options)) *env {
	t.Helper()
	if tt != nil {
		// Registered first, so it runs last: after the server, the clients
		// and the store are gone, no goroutine of theirs may remain.
		before := goleak.IgnoreCurrent()
		tt.Cleanup(func() { goleak.VerifyNone(tt, before) })
	}
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.UnixMilli(start0)}
	k, err := kv.Open(t.Context(), kv.Options{Store: st, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts := resp.Options{KV: k, EventLoop: os.Getenv(eventLoopEnv) == "1"}
	for _, m := range mutate {
		m(&opts)
	}
	srv := resp.NewServer(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, resp.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		st.Close()
	})
	return &env{t: tt, srv: srv, kv: k, clock: c, addr: ln.Addr().String()}
}

// client returns a go-redis client speaking RESP proto.
func (e *env) client(proto int) *redis.Client {
	e.t.Helper()
	c := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: proto, PoolSize: 2, DisableIdentity: true,
		ReadTimeout: 5 * time.Second, MaxRetries: -1})
	e.t.Cleanup(func() { c.Close() })
	return c
}

// reap runs every db's expiry source at the fake clock's now.
func (e *env) reap() int {
	e.t.Helper()
	n := 0
	for _, s := range e.kv.Sources() {
		r, err := expiry.Drain(e.t.Context(), s, e.clock.Now(), 0, 100)
		if err != nil {
			e.t.Fatal(err)
		}
		n += r.Items
	}
	return n
}

// raw opens a plain TCP connection for protocol-level tests.
func (e *env) raw() net.Conn {
	e.t.Helper()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}
