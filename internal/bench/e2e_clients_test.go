package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/server"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// readyHandler closes ready when the server logs server.ReadyMessage, once
// every listener is bound.
type readyHandler struct {
	slog.Handler
	ready chan struct{}
	once  *sync.Once
}

func (h readyHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == server.ReadyMessage {
		h.once.Do(func() { close(h.ready) })
	}
	return h.Handler.Handle(ctx, r)
}

func (h readyHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return readyHandler{h.Handler.WithAttrs(as), h.ready, h.once}
}

func (h readyHandler) WithGroup(name string) slog.Handler {
	return readyHandler{h.Handler.WithGroup(name), h.ready, h.once}
}

// startMayfly runs a mayfly server in this process on free loopback
// ports, stopped when the test ends, and returns its RESP and MongoDB
// addresses. (Only this test imports the server: the bench itself drives
// servers from outside, as it drives its peers.)
func startMayfly(t *testing.T) (respAddr, mongoAddr string) {
	t.Helper()
	cfg := server.DefaultConfig()
	cfg.Dir = t.TempDir()
	cfg.RespAddr, cfg.MongoAddr, cfg.HTTPAddr = freeAddr(t), freeAddr(t), ""
	ready := make(chan struct{})
	cfg.Logger = slog.New(readyHandler{slog.NewTextHandler(io.Discard, nil), ready, &sync.Once{}})
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("mayfly: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		done <- err // for the cleanup
		t.Fatalf("mayfly stopped before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("mayfly not ready within 10 s")
	}
	return cfg.RespAddr, cfg.MongoAddr
}

// runThroughput runs kv and doc (those of them the targets speak) with
// client and checks that every phase measured a positive rate, that no
// phase failed (a reply that is an error fails its phase and leaves a
// note, so no note means zero error replies) and that every read found its
// document.
func runThroughput(t *testing.T, targets []Target, client ClientKind) {
	t.Helper()
	o := DefaultOptions()
	o.Targets = targets
	o.Workloads = []string{"kv", "doc"}
	o.Client = client
	o.Clients = 4
	o.Pipeline = 4
	o.Duration = 80 * time.Millisecond
	o.Keys = 500
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"kv":  {"set_ex", "get", "incr", "hset", "mix", "set_ex_p4", "get_p4", "incr_p4", "hset_p4", "mix_p4"},
		"doc": {"insert", "insert_many", "find_id", "find_indexed", "update", "find_and_modify"},
	}
	seen := 0
	for _, r := range rep.Results {
		seen++
		if r.Error != "" {
			t.Errorf("%s on %s: %s", r.Workload, r.Target, r.Error)
		}
		if r.Client != client {
			t.Errorf("%s on %s: client %q, want %q", r.Workload, r.Target, r.Client, client)
		}
		// Every insert is answered before its phase ends, so reads find
		// their documents: a note is a failed phase or a read that missed.
		for _, n := range r.Notes {
			t.Errorf("%s on %s: %s", r.Workload, r.Target, n)
		}
		for _, op := range want[r.Workload] {
			if m, ok := r.Metric(op + ".ops"); !ok || m.Value <= 0 {
				t.Errorf("%s on %s: %s.ops = %v (measured: %v)", r.Workload, r.Target, op, m.Value, ok)
			}
		}
	}
	if seen != len(targets) {
		t.Errorf("%d results for %d targets", seen, len(targets))
	}
}

// Ensure that kv and doc run against mayfly through both clients, with
// positive rates and no error replies.
func TestThroughputClientsAgainstMayfly(t *testing.T) {
	respAddr, mongoAddr := startMayfly(t)
	targets := []Target{
		{Label: LabelMayfly, Protocol: RESP, Addr: respAddr},
		{Label: LabelMayfly, Protocol: Mongo, Addr: fmt.Sprintf("mongodb://%s/", mongoAddr)},
	}
	for _, client := range []ClientKind{ClientLean, ClientDriver} {
		t.Run(string(client), func(t *testing.T) { runThroughput(t, targets, client) })
	}
}

// Ensure that kv runs against a real Redis through both clients.
func TestThroughputClientsAgainstRedis(t *testing.T) {
	addr, _ := startRedis(t)
	targets := []Target{{Label: LabelRedis, Protocol: RESP, Addr: addr}}
	for _, client := range []ClientKind{ClientLean, ClientDriver} {
		t.Run(string(client), func(t *testing.T) { runThroughput(t, targets, client) })
	}
}
