package session

import (
	"bytes"
	"sync"
	"time"
)

// Registry holds the logical sessions in use.
type Registry struct {
	mu       sync.Mutex
	sessions map[string]*Session
	timeout  time.Duration
}

// New returns an empty registry whose sessions expire after timeout of
// disuse.
func New(timeout time.Duration) *Registry {
	return &Registry{sessions: map[string]*Session{}, timeout: timeout}
}

// Timeout is how long a session may stay unused.
func (r *Registry) Timeout() time.Duration { return r.timeout }

// Key is a session's registry key: its id followed by its user's hash.
func Key(id, uid []byte) string {
	return string(id) + string(uid)
}

// Use returns the session id of user uid, created when new, and records
// its use at now.
func (r *Registry) Use(id, uid []byte, now time.Time) (s *Session, created bool) {
	k := Key(id, uid)
	r.mu.Lock()
	defer r.mu.Unlock()
	s = r.sessions[k]
	if s == nil {
		s = &Session{key: k, id: bytes.Clone(id), uid: bytes.Clone(uid), txn: -1}
		r.sessions[k] = s
		created = true
	}
	s.lastUse = now
	return s, created
}

// Lookup returns the session with key k, or nil.
func (r *Registry) Lookup(k string) *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[k]
}

// End removes the sessions with the given ids (of any user) and returns
// them.
func (r *Registry) End(ids [][]byte) []*Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Session
	for k, s := range r.sessions {
		for _, id := range ids {
			if bytes.Equal(s.id, id) {
				out = append(out, s)
				delete(r.sessions, k)
				break
			}
		}
	}
	return out
}

// EndAll removes every session and returns them.
func (r *Registry) EndAll() []*Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Session, 0, len(r.sessions))
	for k, s := range r.sessions {
		out = append(out, s)
		delete(r.sessions, k)
	}
	return out
}

// Idle removes and returns the sessions last used more than the timeout
// before now.
func (r *Registry) Idle(now time.Time) []*Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Session
	for k, s := range r.sessions {
		if now.Sub(s.lastUse) > r.timeout {
			out = append(out, s)
			delete(r.sessions, k)
		}
	}
	return out
}

// Len is the number of sessions.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions)
}

// Each calls f for every session, under the registry's lock.
func (r *Registry) Each(f func(*Session)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sessions {
		f(s)
	}
}

// Detached returns a session of id and uid that is not in the registry,
// to name one that is known only by its stored records.
func Detached(id, uid []byte) *Session {
	return &Session{key: Key(id, uid), id: bytes.Clone(id), uid: bytes.Clone(uid), txn: -1}
}

// EndMatching removes the sessions match accepts and returns them.
func (r *Registry) EndMatching(match func(*Session) bool) []*Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Session
	for k, s := range r.sessions {
		if match(s) {
			out = append(out, s)
			delete(r.sessions, k)
		}
	}
	return out
}
