package mongo_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/storage"
	wire "github.com/mayfly/mayfly/internal/wire/mongo"
)

// fakeClock is a manual clock for tests: time moves only when a test
// advances it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testServer is a Server on 127.0.0.1:0 over an in-memory document
// database.
type testServer struct {
	addr  string
	srv   *wire.Server
	db    *docdb.Engine
	clock *fakeClock
}

// startServer starts a Server for the test and stops it at cleanup. edit,
// if given, changes the options first.
func startServer(t testing.TB, edit ...func(*wire.Options)) *testServer {
	t.Helper()
	st, err := storage.Open(storage.Options{InMemory: true, Dir: "mem", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	db, err := docdb.Open(docdb.Options{Store: st, Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	opts := wire.Options{DB: db, Logger: slog.New(slog.DiscardHandler), Now: clock.Now}
	for _, e := range edit {
		e(&opts)
	}
	srv := wire.NewServer(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, wire.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		db.Close()
		st.Close()
	})
	return &testServer{addr: ln.Addr().String(), srv: srv, db: db, clock: clock}
}

// client connects the Go driver to the server.
func (ts *testServer) client(t testing.TB) *drv.Client {
	t.Helper()
	cl, err := drv.Connect(options.Client().ApplyURI("mongodb://" + ts.addr + "/?directConnection=true").
		SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

// run runs a command and returns its reply, which may be an error reply.
func run(t testing.TB, db *drv.Database, cmd bson.D) bson.Raw {
	t.Helper()
	raw, err := db.RunCommand(context.Background(), cmd).Raw()
	if err != nil && raw == nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	return raw
}

// mustRun runs a command that must succeed.
func mustRun(t testing.TB, db *drv.Database, cmd bson.D) bson.Raw {
	t.Helper()
	raw, err := db.RunCommand(context.Background(), cmd).Raw()
	if err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	return raw
}

// wantError checks that err is a server error with the code, code name
// and message.
func wantError(t testing.TB, err error, code int32, name, msg string) {
	t.Helper()
	var ce drv.CommandError
	var we drv.WriteException
	switch {
	case errors.As(err, &ce):
		if ce.Code != code || ce.Name != name || (msg != "" && ce.Message != msg) {
			t.Fatalf("error = (%d %s) %q, want (%d %s) %q", ce.Code, ce.Name, ce.Message, code, name, msg)
		}
	case errors.As(err, &we) && len(we.WriteErrors) > 0:
		e := we.WriteErrors[0]
		if int32(e.Code) != code || (msg != "" && e.Message != msg) {
			t.Fatalf("write error = (%d) %q, want (%d) %q", e.Code, e.Message, code, msg)
		}
	default:
		t.Fatalf("error = %v (%T), want code %d %s", err, err, code, name)
	}
}

// cmdError runs a command that must fail and checks its error.
func cmdError(t testing.TB, db *drv.Database, cmd bson.D, code int32, name, msg string) {
	t.Helper()
	err := db.RunCommand(context.Background(), cmd).Err()
	if err == nil {
		t.Fatalf("%v succeeded, want code %d", cmd, code)
	}
	wantError(t, err, code, name, msg)
}

// lookup returns the value at path in a reply.
func lookup(t testing.TB, raw bson.Raw, path ...string) bson.RawValue {
	t.Helper()
	v, err := raw.LookupErr(path...)
	if err != nil {
		t.Fatalf("%v not in %v", path, raw)
	}
	return v
}
