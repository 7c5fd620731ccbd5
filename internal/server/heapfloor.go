package server

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The heap floor (part of --background-priority=low).
//
// Every garbage collection stops the world twice, and a stop waits until
// every goroutine holding a scheduler P reaches a safe point, those on
// lowered threads too: a thread at nice 19 may wait milliseconds for a CPU
// before it can stop, and every request waits with it. mayfly's own heap
// is small (Pebble's block cache lives outside it), so at the default
// GOGC of 100 the allocations of a storm of expirations start collections
// many times a second. The floor raises GOGC while the live heap is small,
// so the heap may grow to heapFloor before a collection. Once the live
// heap is above half the floor, GOGC is 100 again. An operator's GOGC
// environment variable turns the floor off. (See BENCHMARKS.md, "Notes
// moved from code comments".)
const (
	heapFloor      = 64 << 20
	heapFloorEvery = 500 * time.Millisecond
	maxGCPercent   = 5000
)

// gcPercentFor returns the GOGC that puts the heap goal, live·(1 +
// GOGC/100), at floor or above for a live heap of live bytes: 100 when
// that does, more (at most maxGCPercent) when it does not.
func gcPercentFor(live, floor uint64) int {
	if live == 0 || 2*live >= floor {
		return 100
	}
	return int(min(floor*100/live-100, maxGCPercent))
}

// runHeapFloor keeps the GC percent at gcPercentFor(live heap, heapFloor)
// until ctx is done, then restores 100. It does nothing when GOGC is set.
func runHeapFloor(ctx context.Context) {
	if os.Getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := 100
	defer func() {
		if last != 100 {
			debug.SetGCPercent(100)
		}
	}()
	t := time.NewTicker(heapFloorEvery)
	defer t.Stop()
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if p := gcPercentFor(sample[0].Value.Uint64(), heapFloor); p != last {
				debug.SetGCPercent(p)
				last = p
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
