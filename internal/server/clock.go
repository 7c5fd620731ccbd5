package server

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// manualClock is a clock that moves only when told to, for black-box tests
// of expiry that must not wait for real time (`mayfly serve --clock=manual`).
// It starts at the real time of startup.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newManualClock(start time.Time) *manualClock { return &manualClock{now: start} }

// Now returns the clock's current time.
func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d and returns the new time.
func (c *manualClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// clockHandler answers POST /debug/clock?advance=DURATION by advancing the
// manual clock, waking the sweeper and trimming the change log, so items
// that fell due are deleted and history past its retention is gone as if
// the time had passed; it replies with the new time in RFC 3339 with
// milliseconds.
func (s *Server) clockHandler(c *manualClock) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("advance"))
		if err != nil || d < 0 {
			http.Error(w, fmt.Sprintf("advance: want a non-negative duration such as 1.5s, got %q", r.URL.Query().Get("advance")), http.StatusBadRequest)
			return
		}
		now := c.Advance(d)
		s.engine.Wake(time.Time{}) // the zero time means "now": always wakes the sweeper
		if s.mongo != nil {
			if err := s.mongo.db.TrimChangeLog(); err != nil {
				http.Error(w, fmt.Sprintf("trim the change log: %v", err), http.StatusInternalServerError)
				return
			}
		}
		fmt.Fprintln(w, now.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	})
}
