package mongo

import rtmetrics "runtime/metrics"

// totalMemory is the bytes the Go runtime has mapped (MemStats.Sys), read
// from runtime/metrics: runtime.ReadMemStats stops the world, and a
// monitor polling serverStatus must not pause every request for it.
func totalMemory() uint64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/total:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
