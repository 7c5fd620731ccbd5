package bench

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Each bucket ends where MongoDB's next one starts.
func TestLatencyBucketEnd(t *testing.T) {
	bounds := []int64{0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072, 196608, 262144, 393216, 524288,
		786432, 1048576, 1572864, 2097152, 4194304, 8388608}
	for i := range len(bounds) - 1 {
		if got := latencyBucketEnd(bounds[i]); got != bounds[i+1] {
			t.Errorf("bucket from %d ends at %d, want %d", bounds[i], got, bounds[i+1])
		}
	}
}

func TestHistogramQuantileOfDelta(t *testing.T) {
	start := []LatencyBucket{{Micros: 128, Count: 50}}
	end := []LatencyBucket{{Micros: 128, Count: 150}, {Micros: 256, Count: 98}, {Micros: 2048, Count: 2}}
	d := histogramDelta(start, end)
	want := []LatencyBucket{{Micros: 128, Count: 100}, {Micros: 256, Count: 98}, {Micros: 2048, Count: 2}}
	if len(d) != len(want) {
		t.Fatalf("delta = %v, want %v", d, want)
	}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("delta = %v, want %v", d, want)
		}
	}
	// Of 200 reads the 198th is the last of the 256-512 µs bucket and the
	// 100th the last of the first bucket.
	if q, ok := histogramQuantile(d, 0.99); !ok || q != 512*time.Microsecond {
		t.Errorf("p99 = %v, %t; want 512µs", q, ok)
	}
	if q, _ := histogramQuantile(d, 0.5); q != 256*time.Microsecond {
		t.Errorf("p50 = %v, want 256µs", q)
	}
	if q, _ := histogramQuantile(d, 0.995); q != 2560*time.Microsecond {
		t.Errorf("p99.5 = %v, want 2560µs (halfway through 2048-3072)", q)
	}
	if _, ok := histogramQuantile(nil, 0.99); ok {
		t.Error("an empty histogram has a quantile")
	}
}

func TestParseLatencyHistogram(t *testing.T) {
	raw, err := bson.Marshal(bson.D{{Key: "h", Value: bson.A{
		bson.D{{Key: "micros", Value: int64(0)}, {Key: "count", Value: int64(3)}},
		bson.D{{Key: "micros", Value: int64(4096)}, {Key: "count", Value: int32(1)}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseLatencyHistogram(bson.Raw(raw).Lookup("h"))
	if err != nil || len(h) != 2 || h[0] != (LatencyBucket{0, 3}) || h[1] != (LatencyBucket{4096, 1}) {
		t.Fatalf("parse = %v, %v", h, err)
	}
	if _, err := parseLatencyHistogram(bson.Raw(raw).Lookup("missing")); err == nil {
		t.Error("a missing histogram parsed")
	}
}
