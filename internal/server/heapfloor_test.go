package server

import "testing"

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},            // not measured yet
		{8 * mib, 700},      // goal 8·8 = 64 MiB
		{16 * mib, 300},     // goal 16·4 = 64 MiB
		{32 * mib, 100},     // GOGC 100 reaches the floor
		{1 << 30, 100},      // large heaps keep the default
		{1, maxGCPercent},   // capped
		{mib, maxGCPercent}, // 6,300 capped
		{12 * mib, 433},     // rounded down: goal 63.96 MiB
	} {
		if got := gcPercentFor(tc.live, 64*mib); got != tc.want {
			t.Errorf("gcPercentFor(%d, 64 MiB) = %d, want %d", tc.live, got, tc.want)
		}
	}
}
