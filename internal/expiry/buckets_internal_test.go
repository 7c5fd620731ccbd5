package expiry

import (
	"context"
	"testing"
	"time"
)

func TestForegroundBuckets(t *testing.T) {
	prevUpper := time.Duration(0)
	for i := range fgBuckets {
		up := fgUpper(i)
		if up <= prevUpper {
			t.Fatalf("bucket %d upper %v not above %v", i, up, prevUpper)
		}
		// The upper bound and the value just above the previous bound fall
		// into bucket i.
		if got := fgBucket(up); got != i {
			t.Fatalf("fgBucket(%v) = %d, want %d", up, got, i)
		}
		if got := fgBucket(prevUpper + 1); i > 0 && got != i {
			t.Fatalf("fgBucket(%v) = %d, want %d", prevUpper+1, got, i)
		}
		// Resolution: a quarter of a doubling.
		if i > 1 && float64(up)/float64(prevUpper) > 1.26 {
			t.Fatalf("bucket %d is %.2fx its predecessor", i, float64(up)/float64(prevUpper))
		}
		prevUpper = up
	}
	for _, d := range []time.Duration{-time.Second, 0, 1, 1024} {
		if got := fgBucket(d); got != 0 {
			t.Errorf("fgBucket(%v) = %d, want 0", d, got)
		}
	}
	if got := fgBucket(time.Hour); got != fgBuckets-1 {
		t.Errorf("fgBucket(1h) = %d, want the last bucket", got)
	}
}

func TestLagBucket(t *testing.T) {
	for i, b := range lagBounds {
		if got := lagBucket(b); got != i {
			t.Errorf("lagBucket(%v) = %d, want %d", b, got, i)
		}
		if got := lagBucket(b + 1); got != i+1 {
			t.Errorf("lagBucket(%v) = %d, want %d", b+1, got, i+1)
		}
	}
	if got := lagBucket(0); got != 0 {
		t.Errorf("lagBucket(0) = %d", got)
	}
}

func TestLimiterTake(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	var slept time.Duration
	sleep := func(_ context.Context, d time.Duration) error { slept += d; now = now.Add(d); return nil }
	var l limiter
	ctx := context.Background()
	// 50/s: capacity 5, starts full.
	if n, w, _ := l.take(ctx, 1000, 50, clock, sleep); n != 5 || w != 0 {
		t.Fatalf("first take = %d after %v, want 5 at once", n, w)
	}
	if n, w, _ := l.take(ctx, 1000, 50, clock, sleep); n != 5 || w != 100*time.Millisecond {
		t.Fatalf("second take = %d after %v, want 5 after 100ms", n, w)
	}
	l.refund(3)
	if n, w, _ := l.take(ctx, 2, 50, clock, sleep); n != 2 || w != 0 {
		t.Fatalf("take after refund = %d after %v, want 2 at once", n, w)
	}
	if n, _, _ := l.take(ctx, 7, 0, clock, sleep); n != 7 {
		t.Fatalf("unlimited take = %d, want 7", n)
	}
	// Rate below 10/s: capacity 1.
	if n, _, _ := l.take(ctx, 100, 2, clock, sleep); n != 1 {
		t.Fatalf("take at 2/s = %d, want 1", n)
	}
}

func TestEstimate(t *testing.T) {
	tests := []struct {
		n     int64
		rate  float64
		limit int64
		want  time.Duration
	}{
		{1000, 0, 0, 0},
		{1000, 0, 100, 10 * time.Second},
		{1000, 1000, 0, time.Second},
		{1000, 1000, 100, 10 * time.Second},
		{1000, 50, 100, 20 * time.Second},
		{0, 50, 100, 0},
		{1 << 62, 1e-9, 0, time.Duration(1<<63 - 1)},
	}
	for _, tc := range tests {
		if got := estimate(tc.n, tc.rate, tc.limit); got != tc.want {
			t.Errorf("estimate(%d, %v, %d) = %v, want %v", tc.n, tc.rate, tc.limit, got, tc.want)
		}
	}
}
