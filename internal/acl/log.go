package acl

import (
	"sync"
	"time"
)

// LogEntry is one entry of the ACL log: a refused command or a failed
// authentication, counted again while it repeats.
type LogEntry struct {
	ID       int64
	Count    int64
	Reason   string // "command", "key", "channel" or "auth"
	Context  string // "toplevel", "multi", "lua"
	Object   string
	Username string
	Created  time.Time
	Updated  time.Time
	Client   string // the client as CLIENT LIST describes it
}

// logGrouping is how far apart two equal events may be and still be
// counted in one entry.
const logGrouping = 60 * time.Second

// logScan is how many recent entries an event is compared with.
const logScan = 10

// Log is the ACL log, newest entry first, at most its configured length.
type Log struct {
	mu      sync.Mutex
	entries []*LogEntry
	nextID  int64
}

// Add records an event at now, keeping at most maxLen entries: an event
// equal to one of the ten newest entries (same reason, context, object and
// user, within 60 seconds) counts in that entry, which becomes the newest.
func (l *Log) Add(e LogEntry, now time.Time, maxLen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, cur := range l.entries {
		if i >= logScan {
			break
		}
		d := cur.Updated.Sub(now)
		if d < 0 {
			d = -d
		}
		if cur.Reason == e.Reason && cur.Context == e.Context && cur.Object == e.Object &&
			cur.Username == e.Username && d <= logGrouping {
			cur.Count++
			cur.Updated = now
			cur.Client = e.Client
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = cur
			return
		}
	}
	n := e
	n.ID, n.Count, n.Created, n.Updated = l.nextID, 1, now, now
	l.nextID++
	l.entries = append([]*LogEntry{&n}, l.entries...)
	if len(l.entries) > maxLen {
		l.entries = l.entries[:max(maxLen, 0)]
	}
}

// Entries returns copies of the newest count entries (all when count < 0).
func (l *Log) Entries(count int) []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if count < 0 || count > len(l.entries) {
		count = len(l.entries)
	}
	out := make([]LogEntry, count)
	for i := range out {
		out[i] = *l.entries[i]
	}
	return out
}

// Reset empties the log.
func (l *Log) Reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}
