package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Ensure that docscale runs end to end against mayfly at a small size and
// yields its figures, and that a run naming no workload leaves it out.
func TestDocScaleAgainstMayfly(t *testing.T) {
	_, mongoAddr := startMayfly(t)
	o := DefaultOptions()
	o.Targets = []Target{{Label: LabelMayfly, Protocol: Mongo, Addr: fmt.Sprintf("mongodb://%s/", mongoAddr)}}
	o.Workloads = []string{"docscale"}
	o.ScaleDocs = 3000
	o.ScaleInsertRate = 400
	o.ReadRate = 200
	o.Clients = 4
	o.Readers = 2
	o.Duration = 500 * time.Millisecond
	r := runOnly(t, o)
	if m, ok := r.Metric("documents"); !ok || m.Value != 3000 {
		t.Errorf("documents = %v, %v; want 3000", m.Value, ok)
	}
	for _, name := range []string{"load.docs_per_s", "rss", "find_id_alone.p50", "find_id_alone.p99", "find_id_during.p99"} {
		if m, ok := r.Metric(name); !ok || m.Value <= 0 {
			t.Errorf("%s = %v, %v; want a figure", name, m.Value, ok)
		}
	}
	// 400 inserts/s for 0.5 s are 200 documents.
	if m, ok := r.Metric("inserts_during.docs_per_s"); !ok || m.Value != 400 {
		t.Errorf("inserts_during.docs_per_s = %v, %v; want 400", m.Value, ok)
	}
	if len(r.Notes) > 0 {
		t.Errorf("notes %v: every read should find its document", r.Notes)
	}
	if slices.Contains(defaultWorkloads(), "docscale") {
		t.Error("the default workloads include docscale, which runs only when named")
	}
}
