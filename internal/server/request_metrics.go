package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// newRequestHistogram is mayfly_request_duration_seconds: the time each
// command took, by protocol ("mongo", "resp") and command name. The names
// come from each protocol's command table (a Redis command not in it is
// "unknown", an unknown MongoDB command is not counted), so the labels are
// a fixed set whatever clients send.
func newRequestHistogram() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "mayfly_request_duration_seconds",
		Help:    "Time each command took, by protocol and command.",
		Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10), // 50µs to 13s
	}, []string{"protocol", "command"})
}

// observeCommand returns the ObserveCommand function of one protocol.
func (s *Server) observeCommand(protocol string) func(string, time.Duration) {
	return func(name string, d time.Duration) {
		s.requests.WithLabelValues(protocol, name).Observe(d.Seconds())
	}
}
