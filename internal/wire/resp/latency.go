package resp

import (
	"sort"
	"strconv"
	"sync"
	"time"
)

// latencySamples is how many samples the latency monitor keeps per event.
const latencySamples = 160

// latencyMonitor records, per event ("command", "fast-command"), the
// commands that took latency-monitor-threshold milliseconds or more, as
// LATENCY LATEST and HISTORY report them: one sample per second (the
// largest), the latest latencySamples of them, and the largest ever.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencyEvent
}

type latencyEvent struct {
	samples []latencySample // oldest first, at most latencySamples
	max     int64           // milliseconds
}

type latencySample struct {
	at      int64 // Unix seconds
	latency int64 // milliseconds
}

// observe records a command's latency d at now when the monitor is on
// (threshold, in milliseconds, above zero) and d reaches the threshold.
func (m *latencyMonitor) observe(event string, d time.Duration, now time.Time, threshold int64) {
	ms := d.Milliseconds()
	if threshold <= 0 || ms < threshold {
		return
	}
	at := now.Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = make(map[string]*latencyEvent)
	}
	ev := m.events[event]
	if ev == nil {
		ev = &latencyEvent{}
		m.events[event] = ev
	}
	ev.max = max(ev.max, ms)
	if n := len(ev.samples); n > 0 && ev.samples[n-1].at == at {
		ev.samples[n-1].latency = max(ev.samples[n-1].latency, ms)
		return
	}
	if len(ev.samples) == latencySamples {
		ev.samples = append(ev.samples[:0], ev.samples[1:]...)
	}
	ev.samples = append(ev.samples, latencySample{at: at, latency: ms})
}

// latest returns, per event in name order, its name, latest sample and
// largest latency.
func (m *latencyMonitor) latest() (names []string, last []latencySample, maxes []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name := range m.events {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ev := m.events[name]
		last = append(last, ev.samples[len(ev.samples)-1])
		maxes = append(maxes, ev.max)
	}
	return names, last, maxes
}

// history returns the samples of an event, oldest first.
func (m *latencyMonitor) history(event string) []latencySample {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ev := m.events[event]; ev != nil {
		return append([]latencySample(nil), ev.samples...)
	}
	return nil
}

// reset forgets the named events, or every event when none is named, and
// returns how many it forgot.
func (m *latencyMonitor) reset(events []string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, e := range events {
		if _, ok := m.events[e]; ok {
			delete(m.events, e)
			n++
		}
	}
	return n
}

// latencyThreshold is latency-monitor-threshold in milliseconds.
func (c *config) latencyThreshold() int64 {
	n, _ := strconv.ParseInt(c.get("latency-monitor-threshold"), 10, 64)
	return n
}
