package resp

import "runtime/metrics"

// memoryUse is what INFO memory reports of the Go runtime, read from
// runtime/metrics: runtime.ReadMemStats stops the world, and a monitor
// polling INFO must not pause every client for it.
type memoryUse struct {
	heapObjects uint64 // bytes of live and not yet swept heap objects (MemStats.HeapAlloc)
	heapMapped  uint64 // bytes of heap the runtime holds (MemStats.HeapSys)
	total       uint64 // bytes the runtime has mapped (MemStats.Sys)
}

var memoryMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/total:bytes",
}

func readMemory() memoryUse {
	s := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return memoryUse{heapObjects: v[0], heapMapped: v[0] + v[1] + v[2] + v[3], total: v[4]}
}
