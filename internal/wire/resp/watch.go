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
	}
	delete(r.cls, c)
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

// touch marks the watchers of the keys a commit changed. A touch of a
// whole database (FLUSHDB, FLUSHALL, SWAPDB) is left to touchVisible,
// which those commands call before they run.
func (r *watchRegistry) touch(touches []kv.Touch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range touches {
		if t.All {
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

// touchVisible marks, before a FLUSHDB, FLUSHALL or SWAPDB empties or
// exchanges the databases of group, the watchers of every key watched in
// one of them that is visible (exists and has not expired) in any of them:
// as in Redis, only a key that exists before or after the flush or swap
// changes. A watched key that is missing, or only expired, on both sides
// is left alone.
func (r *watchRegistry) touchVisible(tx *kv.Tx, group ...int) error {
	r.mu.Lock()
	var keys []watchKey
	for k := range r.keys {
		for _, db := range group {
			if k.db == db {
				keys = append(keys, k)
			}
		}
	}
	r.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	cur := tx.DB()
	defer tx.Use(cur)
	var changed []watchKey
	for _, k := range keys {
		for _, db := range group {
			if err := tx.Use(db); err != nil {
				return err
			}
			_, ok, err := tx.Encoding([]byte(k.key))
			if err != nil {
				return err
			}
			if ok {
				changed = append(changed, k)
				break
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range changed {
		for _, e := range r.keys[k] {
			e.dirty = true
		}
	}
	return nil
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
		c.s.kv.SetTrackTouches(false)
	}
}
