package bench

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Ensure that scale runs end to end against a real Redis at a small size
// and yields its figures, and that a run naming no workload leaves it out.
func TestScaleAgainstRedis(t *testing.T) {
	addr, _ := startRedis(t)
	o := DefaultOptions()
	o.Targets = []Target{{Label: LabelRedis, Protocol: RESP, Addr: addr}}
	o.Workloads = []string{"scale"}
	o.Keys = 600
	o.ScaleDue = 60
	o.LiveItems = 200
	o.ReadRate = 400
	o.Readers = 2
	o.Timeout = 20 * time.Second // Redis finds rare expired keys by sampling
	o.Lead = 300 * time.Millisecond
	o.Poll = 10 * time.Millisecond
	r := runOnly(t, o)
	if m, ok := r.Metric("keys"); !ok || m.Value != 600 {
		t.Errorf("keys = %v, %v; want 600", m.Value, ok)
	}
	if m, ok := r.Metric("rss"); !ok || m.Value <= 0 {
		t.Errorf("rss = %v, %v; want the server's resident bytes", m.Value, ok)
	}
	if _, ok := r.Metric("gone_after"); !ok {
		t.Errorf("no gone_after: the 60 due keys were not all deleted within %s (metrics %v, notes %v)", o.Timeout, r.Metrics, r.Notes)
	}
	for _, name := range []string{"dbsize.p50", "dbsize.p99", "info_keyspace.p50", "randomkey.p99", "scan.p50", "scan.p99"} {
		if m, ok := r.Metric(name); !ok || m.Value <= 0 {
			t.Errorf("%s = %v, %v; want a latency", name, m.Value, ok)
		}
	}

	def := DefaultOptions()
	def.Targets = o.Targets
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(def.Workloads, "scale") {
		t.Errorf("default workloads %v include scale, which runs only when named", def.Workloads)
	}
}

// runOnly runs o, of one workload on one target, within a minute and
// returns its one result, failing the test on an error.
func runOnly(t *testing.T, o Options) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("results = %v, want one", rep.Results)
	}
	r := rep.Results[0]
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	return r
}
