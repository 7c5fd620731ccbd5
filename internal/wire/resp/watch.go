package resp

import (
	"sync"

	"github.com/mayfly/mayfly/internal/kv"
)

// watchRegistry maps watched keys to the clients watching them. kv tells
// it (through the observer) which keys each commit touched; a touched key
// marks its watchers dirty so their EXEC fails.
type watchRegistry struct {
	mu   sync.Mutex
	keys map[watchKey]map[*client]*watchEntry
	byDB map[int]int // watched key count per db, for FLUSHDB-style touches
	cls  map[*client][]*watchEntry
}

type watchKey struct {
	db  int
	key string
}

type watchEntry struct {
	k watchKey
	// visible says the key existed (and had not expired) at WATCH time. A
	// key that was already expired then is unchanged by its later deletion.
	visible bool
	dirty   bool
}

func newWatchRegistry() *watchRegistry {
	return &watchRegistry{
		keys: make(map[watchKey]map[*client]*watchEntry),
		byDB: make(map[int]int),
		cls:  make(map[*client][]*watchEntry),
	}
}

func (r *watchRegistry) watch(c *client, db int, key string, visible bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := watchKey{db, key}
	if r.keys[k] == nil {
		r.keys[k] = make(map[*client]*watchEntry)
	}
	if _, ok := r.keys[k][c]; ok {
		return
	}
	e := &watchEntry{k: k, visible: visible}
	r.keys[k][c] = e
	r.byDB[db]++
	r.cls[c] = append(r.cls[c], e)
}

// entries returns c's watched keys and whether any was touched.
func (r *watchRegistry) entries(c *client) ([]watchEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []watchEntry
	dirty := false
	for _, e := range r.cls[c] {
		out = append(out, *e)
		dirty = dirty || e.dirty
	}
	return out, dirty
}

func (r *watchRegistry) unwatchAll(c *client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.cls[c] {
		delete(r.keys[e.k], c)
		if len(r.keys[e.k]) == 0 {
			delete(r.keys, e.k)
		}
		r.byDB[e.k.db]--
	}
	delete(r.cls, c)
}

// keysOf returns the watched keys of db.
func (r *watchRegistry) keysOf(db int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byDB[db] == 0 {
		return nil
	}
	var out []string
	for k := range r.keys {
		if k.db == db {
			out = append(out, k.key)
		}
	}
	return out
}

func (r *watchRegistry) clients() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.cls)
}

func (r *watchRegistry) empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.cls) == 0
}

func (r *watchRegistry) touch(touches []kv.Touch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range touches {
		if t.Read || t.Flushed {
			continue
		}
		if t.All {
			if r.byDB[t.DB] == 0 {
				continue
			}
			for k, m := range r.keys {
				if k.db == t.DB {
					for _, e := range m {
						e.dirty = true
					}
				}
			}
			continue
		}
		for _, e := range r.keys[watchKey{t.DB, t.Key}] {
			if t.Expired && !e.visible {
				continue
			}
			e.dirty = true
		}
	}
}

// multiState is a client's open MULTI: the queued commands and whether a
// queuing error aborts the EXEC.
type multiState struct {
	cmds    []queued
	aborted bool
}

type queued struct {
	cmd  *command
	args [][]byte
}

// queue copies args: the connection's read buffer is reused.
func (m *multiState) queue(cmd *command, args [][]byte) {
	cp := make([][]byte, len(args))
	for i, a := range args {
		cp[i] = append([]byte(nil), a...)
	}
	m.cmds = append(m.cmds, queued{cmd, cp})
}

// unwatch drops every watch of the client and stops touch tracking when no
// one watches any more.
func (c *client) unwatch() {
	c.s.watches.unwatchAll(c)
	if c.s.watches.empty() {
		c.s.updateTouches()
	}
}
