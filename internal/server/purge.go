package server

import "go.mongodb.org/mongo-driver/v2/bson"

// purgeMetrics is serverStatus's metrics.purge: the physical purge bound
// and how far behind it the oldest deleted-but-not-purged item is.
func (s *Server) purgeMetrics() bson.D {
	st := s.store.PurgeStats()
	return bson.D{
		{Key: "purgeAfterMillis", Value: st.After.Milliseconds()},
		{Key: "oldestPendingMillis", Value: st.OldestPending.Milliseconds()},
		{Key: "pendingSpans", Value: int64(st.PendingSpans)},
		{Key: "cycles", Value: st.Cycles},
		{Key: "failures", Value: st.Failures},
		{Key: "compactedSpans", Value: st.CompactedSpans},
		{Key: "lastCycleMillis", Value: st.LastCycle.Milliseconds()},
	}
}
