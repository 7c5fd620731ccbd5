package resp

import (
	"runtime"
	"testing"
)

// readMemory must report what runtime.ReadMemStats does, without stopping
// the world: the metrics are documented as MemStats' fields. The heap may
// grow between the two reads, so one of a few attempts must agree exactly.
func TestReadMemoryMatchesMemStats(t *testing.T) {
	var got memoryUse
	var ms runtime.MemStats
	for range 20 {
		got = readMemory()
		runtime.ReadMemStats(&ms)
		if got.total == ms.Sys && got.heapMapped == ms.HeapSys {
			break
		}
	}
	if got.total != ms.Sys || got.heapMapped != ms.HeapSys {
		t.Errorf("readMemory total %d, heap %d; MemStats.Sys %d, HeapSys %d", got.total, got.heapMapped, ms.Sys, ms.HeapSys)
	}
	if got.heapObjects == 0 || got.heapObjects > got.heapMapped {
		t.Errorf("heapObjects = %d, want within (0, %d]", got.heapObjects, got.heapMapped)
	}
}
