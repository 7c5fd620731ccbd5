package bench

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// LatencyBucket is one bucket of a MongoDB latency histogram
// (serverStatus opLatencies with histograms): Count operations took at
// least Micros microseconds and less than the next bucket's bound.
type LatencyBucket struct {
	Micros, Count int64
}

// parseLatencyHistogram reads a histogram array of opLatencies.
func parseLatencyHistogram(v bson.RawValue) ([]LatencyBucket, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, fmt.Errorf("histogram is %s, not an array", v.Type)
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	out := make([]LatencyBucket, 0, len(vals))
	for _, e := range vals {
		d, ok := e.DocumentOK()
		if !ok {
			return nil, fmt.Errorf("histogram entry is %s, not a document", e.Type)
		}
		micros, ok1 := d.Lookup("micros").AsInt64OK()
		count, ok2 := d.Lookup("count").AsInt64OK()
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("histogram entry %s lacks numeric micros and count", d)
		}
		out = append(out, LatencyBucket{Micros: micros, Count: count})
	}
	return out, nil
}

// latencyBucketEnd is the exclusive upper bound of MongoDB's bucket that
// starts at micros: buckets double, and from 2,048 µs up to 2^21 µs each
// doubling is split in two halves.
func latencyBucketEnd(micros int64) int64 {
	switch {
	case micros < 2:
		return 2
	case micros < 2048 || micros >= 1<<21:
		return 2 * micros
	case micros&(micros-1) == 0: // 2^n: the lower half ends at 3·2^(n-1)
		return micros * 3 / 2
	default: // 3·2^(n-1): the upper half ends at 2^(n+1)
		return micros * 4 / 3
	}
}

// histogramDelta is what was counted between two readings of one
// cumulative histogram.
func histogramDelta(from, to []LatencyBucket) []LatencyBucket {
	before := make(map[int64]int64, len(from))
	for _, b := range from {
		before[b.Micros] = b.Count
	}
	var out []LatencyBucket
	for _, b := range to {
		if n := b.Count - before[b.Micros]; n > 0 {
			out = append(out, LatencyBucket{Micros: b.Micros, Count: n})
		}
	}
	return out
}

// histogramQuantile estimates the q-quantile of a histogram whose buckets
// are in ascending order, interpolating linearly inside the bucket that
// holds it; false when the histogram is empty.
func histogramQuantile(h []LatencyBucket, q float64) (time.Duration, bool) {
	var total int64
	for _, b := range h {
		total += b.Count
	}
	if total == 0 {
		return 0, false
	}
	rank := q * float64(total)
	var seen int64
	for _, b := range h {
		if float64(seen+b.Count) >= rank {
			frac := (rank - float64(seen)) / float64(b.Count)
			lo, hi := float64(b.Micros), float64(latencyBucketEnd(b.Micros))
			return time.Duration((lo + frac*(hi-lo)) * float64(time.Microsecond)), true
		}
		seen += b.Count
	}
	last := h[len(h)-1].Micros
	return time.Duration(latencyBucketEnd(last)) * time.Microsecond, true
}

// addServerReads adds the p99 of the server's own read latencies before
// and during to r, from three readings of its cumulative histogram: when
// the foreground reads started, at the due instant and at the end. It adds
// nothing where the server reports no histogram (Redis, or a server
// without opLatencies).
func addServerReads(r *Result, start, due, end []LatencyBucket) {
	before, ok := histogramQuantile(histogramDelta(start, due), 0.99)
	if !ok {
		return
	}
	during, ok := histogramQuantile(histogramDelta(due, end), 0.99)
	if !ok {
		return
	}
	r.addDur("server_read_before.p99", before, Lower)
	r.addDur("server_read_during.p99", during, Lower)
	r.add("server_read_p99_during_over_before", float64(during)/float64(before), "x", Lower)
}
