package mongo

import "runtime"

// memAlloc returns the bytes allocated so far (runtime.MemStats.TotalAlloc).
func memAlloc() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.TotalAlloc)
}
