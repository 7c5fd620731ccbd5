package kv

// Class is a keyspace-notification class, as the letters of Redis's
// notify-keyspace-events name them. Classes combine as a bit set.
type Class uint16

// The notification classes.
const (
	ClassGeneric Class = 1 << iota // g: DEL, EXPIRE, RENAME, ...
	ClassString                    // $: string commands
	ClassList                      // l: list commands
	ClassSet                       // s: set commands
	ClassHash                      // h: hash commands
	ClassZSet                      // z: sorted set commands
	ClassExpired                   // x: a key expired
	ClassEvicted                   // e: a key was evicted
	ClassStream                    // t: stream commands
	ClassKeyMiss                   // m: a read found no key
	ClassModule                    // d: module key types
	ClassNew                       // n: a key was created
)

// Event is one keyspace event: Name happened to Key in logical database DB.
type Event struct {
	DB    int
	Class Class
	Name  string
	Key   string
}

// Touch says that a key changed, for WATCH. All means every key of DB
// changed (FLUSHDB, FLUSHALL, SWAPDB); Expired means the change is the
// deletion of a key that had already logically expired.
type Touch struct {
	DB      int
	Key     string
	All     bool
	Expired bool
}

// Observer receives what each commit changed. Committed is called while
// the store's lock is still held, so calls arrive in commit order, once the
// Tx is published to memory and just before its batch is applied to
// storage (commit.go); it must not block and must not call back into the
// Store.
type Observer interface {
	Committed(events []Event, touches []Touch)
}

// SetObserver installs the observer of committed events and touches.
func (s *Store) SetObserver(o Observer) {
	s.mu.Lock()
	s.observer = o
	s.mu.Unlock()
}

// SetNotifyMask says which event classes to record; events of other classes
// are not even built. Zero turns notifications off.
func (s *Store) SetNotifyMask(m Class) { s.notifyMask.Store(uint32(m)) }

// SetTrackTouches turns the recording of touched keys (for WATCH) on or off.
func (s *Store) SetTrackTouches(on bool) { s.trackTouches.Store(on) }

// notify records an event if its class is enabled.
func (tx *Tx) notify(c Class, name string, key []byte) {
	if Class(tx.s.notifyMask.Load())&c == 0 {
		return
	}
	tx.events = append(tx.events, Event{DB: tx.ldb, Class: c, Name: name, Key: string(key)})
}

// notifyDB records an event in another logical database than the current.
func (tx *Tx) notifyDB(db int, c Class, name string, key []byte) {
	if Class(tx.s.notifyMask.Load())&c == 0 {
		return
	}
	tx.events = append(tx.events, Event{DB: db, Class: c, Name: name, Key: string(key)})
}

// Notify records a keyspace event for key in the current database; the
// collection types call it with their own class and event names.
func (tx *Tx) Notify(c Class, name string, key []byte) { tx.notify(c, name, key) }

func (tx *Tx) touch(db int, key []byte, expired bool) {
	if !tx.s.trackTouches.Load() {
		return
	}
	tx.touches = append(tx.touches, Touch{DB: db, Key: string(key), Expired: expired})
}

func (tx *Tx) touchAll(db int) {
	if !tx.s.trackTouches.Load() {
		return
	}
	tx.touches = append(tx.touches, Touch{DB: db, All: true})
}
