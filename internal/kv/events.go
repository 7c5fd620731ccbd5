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

// Touch says that a key changed, for WATCH and client-side caching. All
// means every key of DB changed (FLUSHDB, FLUSHALL, SWAPDB); Expired means
// the change is the deletion of a key that had already logically expired.
// Two kinds of touch change no key: Read says that client Origin read Key
// (NoteRead), Flushed that FLUSHDB (DB is its database), FLUSHALL or
// SWAPDB (DB is -1) replaced whole databases' contents, besides the
// touches of the keys it changed. Origin
// is the Tx's origin (SetOrigin) for the other touches: who changed the
// key, zero for the expiry engine. Touches arrive in the order the Tx made
// them.
type Touch struct {
	DB      int
	Key     string
	All     bool
	Expired bool
	Read    bool
	Flushed bool
	Origin  uint64
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

// SetTrackTouches turns the recording of touches (for WATCH and
// client-side caching) on or off.
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
	tx.touches = append(tx.touches, Touch{DB: db, Key: string(key), Expired: expired, Origin: tx.origin})
}

// SetOrigin names who runs the Tx (a client's id): the touches it records
// carry it, so that an observer knows who changed a key. A Tx begins with
// origin zero.
func (tx *Tx) SetOrigin(id uint64) { tx.origin = id }

// NoteRead records, while touches are tracked, that client by read key in
// the current database: a Read touch, in order with the Tx's changes.
func (tx *Tx) NoteRead(key []byte, by uint64) {
	if !tx.s.trackTouches.Load() {
		return
	}
	tx.touches = append(tx.touches, Touch{DB: tx.ldb, Key: string(key), Read: true, Origin: by})
}

// touchFlushed records, while touches are tracked, that FLUSHDB (db),
// FLUSHALL or SWAPDB (db -1) replaced whole databases' contents.
func (tx *Tx) touchFlushed(db int) {
	if !tx.s.trackTouches.Load() {
		return
	}
	tx.touches = append(tx.touches, Touch{DB: db, Flushed: true, Origin: tx.origin})
}

// KeyWatcher is implemented by an Observer that tracks changes of single
// keys (WATCH). A flush or a swap of a database then touches only the
// watched keys it changes, those that exist in it (or, for a swap, in the
// other database), as Redis does; without it the whole database is
// touched.
type KeyWatcher interface {
	// WatchedKeys returns the keys of logical database db being watched.
	// It is called with the store's lock held and must not call back
	// into the Store.
	WatchedKeys(db int) []string
}

// touchReplaced records, before logical database db's contents are
// dropped or swapped for another's, a touch of each watched key of db that
// exists in one of the physical databases pdbs; of the whole database when
// the observer tracks no single keys.
func (tx *Tx) touchReplaced(db int, pdbs ...byte) error {
	if !tx.s.trackTouches.Load() {
		return nil
	}
	kw, ok := tx.s.observer.(KeyWatcher)
	if !ok {
		tx.touchAll(db)
		return nil
	}
	for _, k := range kw.WatchedKeys(db) {
		for _, pdb := range pdbs {
			m, found, err := tx.getMeta(pdb, []byte(k))
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			gone, err := tx.gone(pdb, m)
			if err != nil {
				return err
			}
			if !gone {
				tx.touch(db, []byte(k), false)
				break
			}
		}
	}
	return nil
}

func (tx *Tx) touchAll(db int) {
	if !tx.s.trackTouches.Load() {
		return
	}
	tx.touches = append(tx.touches, Touch{DB: db, All: true, Origin: tx.origin})
}
