package mongo

import (
	"fmt"
	"testing"
	"time"
)

// The buckets are MongoDB's: powers of two, halved from 2,048 µs to 2 s,
// the last one open.
func TestLatencyBucket(t *testing.T) {
	for _, tc := range []struct {
		micros uint64
		want   uint64 // the bucket's lower bound
	}{
		{0, 0}, {1, 0}, {2, 2}, {3, 2}, {1023, 512}, {1024, 1024}, {2047, 1024},
		{2048, 2048}, {3071, 2048}, {3072, 3072}, {4095, 3072}, {4096, 4096}, {6143, 4096}, {6144, 6144},
		{1048575, 786432}, {1048576, 1048576}, {1572863, 1048576}, {1572864, 1572864}, {2097151, 1572864},
		{2097152, 2097152}, {3 << 20, 2097152}, {1 << 40, 1 << 40}, {1 << 62, 1 << 40},
	} {
		if got := latencyLowerBounds[latencyBucket(tc.micros)]; got != tc.want {
			t.Errorf("%d µs: bucket from %d, want %d", tc.micros, got, tc.want)
		}
	}
	for i, lb := range latencyLowerBounds {
		if i > 0 && latencyBucket(lb) != i {
			t.Errorf("lower bound %d falls in bucket %d, want %d", lb, latencyBucket(lb), i)
		}
	}
}

func TestLatencyHistogramDoc(t *testing.T) {
	var h latencyHistogram
	for _, d := range []time.Duration{500 * time.Nanosecond, 3 * time.Microsecond, 3 * time.Microsecond, 5 * time.Millisecond} {
		h.record(d)
	}
	d := h.doc(true)
	if len(d) != 3 || d[0].Key != "histogram" || d[1].Key != "latency" || d[2].Key != "ops" {
		t.Fatalf("doc = %v, want histogram, latency, ops", d)
	}
	if d[1].Value != int64(0+3+3+5000) || d[2].Value != int64(4) {
		t.Errorf("latency, ops = %v, %v; want 5006, 4", d[1].Value, d[2].Value)
	}
	want := `[{"micros":{"$numberLong":"0"},"count":{"$numberLong":"1"}} ` +
		`{"micros":{"$numberLong":"2"},"count":{"$numberLong":"2"}} ` +
		`{"micros":{"$numberLong":"4096"},"count":{"$numberLong":"1"}}]`
	if got := fmt.Sprint(d[0].Value); got != want {
		t.Errorf("histogram = %s, want %s", got, want)
	}
	if d := h.doc(false); len(d) != 2 || d[0].Key != "latency" {
		t.Errorf("without histograms: %v", d)
	}
}

// Past maxLatencyNamespaces new namespaces are not tracked, until dropping
// a database forgets its own.
func TestCollectionLatenciesBound(t *testing.T) {
	var c collectionLatencies
	for i := range maxLatencyNamespaces {
		if c.of(namespace("db", itoa(i))) == nil {
			t.Fatalf("namespace %d of %d not tracked", i, maxLatencyNamespaces)
		}
	}
	if c.of("other.x") != nil {
		t.Fatal("a namespace past the bound is tracked")
	}
	if c.of("db.7") == nil {
		t.Fatal("a tracked namespace is lost at the bound")
	}
	c.forget("db.7")
	c.forget("db.1") // also leaves db.10, db.100...
	if len(c.byNS) != maxLatencyNamespaces-2 {
		t.Fatalf("after forgetting two: %d tracked", len(c.byNS))
	}
	c.forget("db.")
	if len(c.byNS) != 0 || c.of("other.x") == nil {
		t.Fatalf("after forgetting the database: %d tracked", len(c.byNS))
	}
}
