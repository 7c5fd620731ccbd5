package kv

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/mayfly/mayfly/internal/invariants"
	"github.com/mayfly/mayfly/internal/storage"
)

// Tx is the unit of execution: it holds the store's lock from Begin to
// Commit or Rollback, so everything done through it is atomic with respect
// to every other client and to the expiry sweeper. All writes go to one
// indexed storage batch, committed once: a whole pipeline or EXEC becomes
// one batch. A Tx is not safe for concurrent use.
//
// The clock is read once per command: Tick freezes "now" until the next
// Tick, so a key cannot expire halfway through a command or an EXEC.
type Tx struct {
	s     *Store
	b     *storage.Batch
	dbmap [NumDBs]byte
	ldb   int  // logical db in use
	pdb   byte // its physical db
	now   int64

	delta [NumDBs]counters
	// dueDeltas is what the Tx changed of Store.dueCounts (duecount.go).
	dueDeltas [NumDBs]dueDelta
	flushed   [NumDBs]bool // physical db was flushed: its base counters are zero
	expired   int64
	lazy      int64
	evicted   int64
	onEvict   func(key []byte) // MakeRoom's callback, while it runs
	wake      int64            // earliest expireAt written, 0 for none
	events    []Event
	touches   []Touch
	// streamsGone are the streams this Tx deleted or replaced
	// (stream_gone.go).
	streamsGone []Touch
	origin      uint64 // who runs the Tx (SetOrigin), carried by its touches
	kbuf        []byte
	ebuf        []byte
	mapDirty    bool
	garbage     bool
	synced      bool // storage has every earlier commit applied (Tx.applied)
	versioned   bool // the Tx took a new version (NewVersion)
	// forgetDeleted makes Commit drop the records the Tx deleted from the
	// cache instead of caching them as absent: the sweeper's Txs set it,
	// since the keys it reaps are ones nobody asked for lately, and
	// caching them as absent would evict the useful entries.
	forgetDeleted bool
	// pending holds the metadata records written by this Tx, keyed by
	// metaKey, nil for deleted ones: what Commit applies to the cache.
	pending map[string][]byte
	// stop, once closed, makes the Tx's long walks give up (StopOn).
	stop <-chan struct{}
	// expiryLog holds the expiries to append to the expiry log's stream
	// at commit (expiry_log.go).
	expiryLog []expiryLogEntry
}

// Begin opens a Tx on logical database 0 with now read from the clock. It
// blocks while another Tx is open.
func (s *Store) Begin() *Tx {
	s.mu.Lock()
	return s.begun()
}

// begun opens a Tx; s.mu is held.
func (s *Store) begun() *Tx {
	tx, _ := s.txPool.Get().(*Tx)
	if tx == nil {
		tx = &Tx{}
	}
	if s.stale.Load() {
		s.reloadIfStale()
	}
	tx.s = s
	tx.dbmap = s.dbmap
	tx.Use(0)
	tx.Tick()
	return tx
}

// TryBegin is Begin when the store's lock is free at once; it reports
// false, and begins nothing, when another Tx holds it.
func (s *Store) TryBegin() (*Tx, bool) {
	if !s.mu.TryLock() {
		return nil, false
	}
	return s.begun(), true
}

// StopOn makes the Tx's walks over a whole database (KEYS, SCAN) or a whole
// collection (HSCAN, SSCAN, ZSCAN) give up with ErrStopped once done is
// closed, checking between keys: a server that must stop does not wait for
// them. The Tx's lock is held until Commit or Rollback either way.
func (tx *Tx) StopOn(done <-chan struct{}) { tx.stop = done }

// stopEvery is how many steps of a walk pass between two checks of stop.
const stopEvery = 256

// stopping reports at every stopEvery-th step of a walk whether the Tx was
// told to stop.
func (tx *Tx) stopping(step int) bool {
	if tx.stop == nil || step%stopEvery != 0 {
		return false
	}
	select {
	case <-tx.stop:
		return true
	default:
		return false
	}
}

// Tick reads the clock; the new time holds until the next Tick.
func (tx *Tx) Tick() { tx.now = tx.s.opts.Now().UnixMilli() }

// SetNow freezes the transaction's time at t (the sweeper's due time).
func (tx *Tx) SetNow(t time.Time) { tx.now = t.UnixMilli() }

// Now returns the frozen time in Unix milliseconds.
func (tx *Tx) Now() int64 { return tx.now }

// Use selects logical database db; it returns ErrDBIndex when out of range.
func (tx *Tx) Use(db int) error {
	if db < 0 || db >= NumDBs {
		return ErrDBIndex
	}
	tx.ldb = db
	tx.pdb = tx.dbmap[db]
	return nil
}

// DB returns the logical database in use.
func (tx *Tx) DB() int { return tx.ldb }

// reader is what read paths use: the batch once the Tx has one (its own
// writes over the latest state), the store itself before that. Both see
// the same data, since every write goes through a Tx under the lock, and
// reading the store directly skips building the batch's merged view.
// Either way the reads wait for the commit before this Tx to be applied.
func (tx *Tx) reader() storage.Reader {
	if tx.b != nil {
		return tx.batch()
	}
	tx.applied()
	return tx.s.st
}

// elems is reader for the reads of the elements of version v (the keys
// under subPrefix(tx.pdb, v)) only: on a member of a replica set, it waits
// for the earlier proposals only when one not yet applied wrote an element
// of v (unapplied.go).
func (tx *Tx) elems(v uint64) storage.Reader {
	if tx.synced || !tx.s.st.Replicating() || tx.flushed != [NumDBs]bool{} || !tx.s.unapplied.currentVersion(v) {
		return tx.reader()
	}
	if tx.b != nil {
		return tx.indexedBatch()
	}
	return tx.s.st
}

// batch returns the Tx's batch for reading and writing: an indexed one, so
// that the Tx reads its own writes.
func (tx *Tx) batch() *storage.Batch {
	tx.applied() // an indexed batch reads through to storage
	return tx.indexedBatch()
}

// indexedBatch returns the Tx's batch, indexed, without waiting for the
// earlier proposals as batch does: for writes of elements, which read
// nothing, and for the reads of elems, which wait when they must.
func (tx *Tx) indexedBatch() *storage.Batch {
	switch {
	case tx.b == nil:
		tx.b = tx.s.st.NewIndexedBatch()
	case !tx.b.Indexed():
		// Written by writer() so far; reads need the index now. Apply
		// cannot fail on a batch we built, and if it did, reads through
		// the plain batch fail with storage.ErrNotIndexed.
		if nb, err := tx.b.ToIndexed(); err == nil {
			tx.b = nb
		}
	}
	return tx.b
}

// writer returns the Tx's batch for writes that no later read of the Tx
// goes through the batch for: metadata records (read back through
// Tx.pending), the expiry index and garbage records. A Tx that only does
// such writes (SET, DEL, EXPIRE, INCR...) never pays for a batch index.
func (tx *Tx) writer() *storage.Batch {
	if tx.b == nil {
		tx.b = tx.s.st.NewBatch()
	}
	return tx.b
}

// Commit publishes the Tx and makes its writes durable. Under the store's
// lock it publishes the counters, the metadata cache, the database map and
// the stats, and calls the observer; it then hands the lock to the next Tx
// and applies the batch to storage while that Tx runs (commit.go). It
// returns once its batch, and every batch committed before it, is applied
// (fsynced under DurabilitySync), so even a read-only Tx returns only after
// the writes it may have read are in storage. A Tx whose store is closed
// or failed publishes nothing and returns the error; a batch that cannot be
// applied makes the store fail-stop and returns ErrFailed.
func (tx *Tx) Commit() error {
	s := tx.s
	if err := s.Err(); err != nil {
		tx.finish(nil)
		return err
	}
	if s.closed {
		tx.finish(nil)
		return ErrClosed
	}
	if tx.b != nil && !tx.b.Empty() {
		// A replica set follower refuses writes before publishing them.
		if err := s.st.Writable(); err != nil {
			tx.finish(nil)
			return fmt.Errorf("kv: commit: %w", err)
		}
	}
	logged, err := tx.appendExpiryLog()
	if err != nil {
		tx.finish(nil)
		return fmt.Errorf("kv: commit: expiry log: %w", err)
	}
	if err := tx.storeCounters(); err != nil {
		tx.finish(nil)
		return fmt.Errorf("kv: commit: counters: %w", err)
	}
	for i := range tx.delta {
		if tx.flushed[i] {
			s.c[i] = counters{}
			s.cache.clear()
		}
		s.c[i].keys += tx.delta[i].keys
		s.c[i].expires += tx.delta[i].expires
		s.c[i].expSum.addI(tx.delta[i].expSum)
		s.c[i].sub.add(tx.delta[i].sub)
		s.c[i].bytes += tx.delta[i].bytes
	}
	s.publishUsed()
	tx.commitDue()
	var seq uint64
	if tx.b != nil && !tx.b.Empty() && s.st.Replicating() {
		seq = s.unapplied.next()
		for _, f := range tx.flushed {
			if f {
				s.unapplied.noteFlush(seq)
			}
		}
		s.unapplied.noteWrites(seq, tx.b)
	}
	for mk, rec := range tx.pending {
		if seq != 0 {
			s.unapplied.note(seq, mk)
		}
		if rec == nil && tx.forgetDeleted {
			s.cache.drop([]byte(mk))
		} else {
			s.cache.put([]byte(mk), rec)
		}
	}
	if tx.mapDirty {
		s.dbmap = tx.dbmap
		m := tx.dbmap
		s.dbmapAtomic.Store(&m)
	}
	if tx.expired > 0 {
		s.stats.expired.Add(tx.expired)
		s.stats.expiredLazy.Add(tx.lazy)
	}
	if tx.evicted > 0 {
		s.stats.evicted.Add(tx.evicted)
	}
	if s.observer != nil && (len(tx.events) > 0 || len(tx.touches) > 0) {
		s.observer.Committed(tx.events, tx.touches)
	}
	tx.reportStreamsGone()
	wake := tx.wake
	if tx.garbage {
		select {
		case s.garbage <- struct{}{}:
		default:
		}
	}
	b := tx.b
	tx.b = nil
	if err := tx.finish(b); err != nil {
		return fmt.Errorf("kv: commit: %w", err)
	}
	if wake != 0 && s.opts.Waker != nil {
		s.opts.Waker.Wake(time.UnixMilli(wake + 1))
	}
	if logged {
		if l := s.expiryLog.Load(); l != nil && l.Appended != nil {
			l.Appended()
		}
	}
	return nil
}

// Rollback discards the writes and releases the lock. Like Commit, it
// returns only once every earlier batch is applied, since the Tx may have
// read their writes from memory.
func (tx *Tx) Rollback() { tx.finish(nil) }

// reset clears tx for the pool, closing its batch if it still has one.
func (tx *Tx) reset() {
	if tx.b != nil {
		tx.b.Close()
		tx.b = nil
	}
	tx.delta = [NumDBs]counters{}
	tx.dueDeltas = [NumDBs]dueDelta{}
	tx.flushed = [NumDBs]bool{}
	tx.expired, tx.lazy, tx.evicted, tx.wake = 0, 0, 0, 0
	tx.mapDirty, tx.garbage, tx.synced, tx.forgetDeleted, tx.versioned = false, false, false, false, false
	tx.origin = 0
	tx.expiryLog = tx.expiryLog[:0]
	clear(tx.pending)
	clear(tx.events)
	tx.events = tx.events[:0]
	clear(tx.touches)
	tx.touches = tx.touches[:0]
	tx.streamsGone = nil
	tx.stop = nil
	tx.s = nil
}

// getMeta reads the raw metadata of key in physical db pdb, expired or not.
func (tx *Tx) getMeta(pdb byte, key []byte) (Meta, bool, error) {
	tx.kbuf = metaKey(tx.kbuf, pdb, key)
	v, err := tx.readMeta(pdb, tx.kbuf)
	if err != nil {
		return Meta{}, false, fmt.Errorf("kv: read %q: %w", key, err)
	}
	if v == nil {
		return Meta{}, false, nil
	}
	m, err := decodeMeta(v)
	if err != nil {
		return Meta{}, false, fmt.Errorf("kv: key %q: %w", key, err)
	}
	return m, true, nil
}

// readMeta returns a private copy of the metadata record stored under mk
// (a metaKey of physical db pdb) as this Tx sees it, or nil when there is
// none: the Tx's own writes first, then the cache, then storage (see
// metaCache for why the cache is exact).
func (tx *Tx) readMeta(pdb byte, mk []byte) ([]byte, error) {
	if tx.flushed[pdb] {
		// The batch holds a range deletion the cache knows nothing of.
		v, err := tx.reader().Get(mk)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, nil
		}
		return v, err
	}
	if rec, ok := tx.pending[string(mk)]; ok {
		return bytes.Clone(rec), nil
	}
	cache := tx.s.cache
	if rec, ok := cache.get(mk); ok {
		return bytes.Clone(rec), nil
	}
	if !tx.s.st.Replicating() || !tx.s.unapplied.current(mk) {
		tx.applied()
	}
	v, err := tx.s.st.Get(mk)
	if errors.Is(err, storage.ErrNotFound) {
		cache.put(mk, nil)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cache.put(mk, v)
	return v, nil
}

// notePending records the metadata record the Tx wrote under mk (nil for
// a deletion), for its own later reads and for the cache at Commit.
func (tx *Tx) notePending(mk, rec []byte) {
	if tx.pending == nil {
		tx.pending = make(map[string][]byte)
	}
	var own []byte
	if rec != nil {
		own = append(make([]byte, 0, len(rec)), rec...)
	}
	tx.pending[string(mk)] = own
}

// Lookup returns the metadata of key in the current database for a write
// path. A key found expired is deleted here (an `expired` event), and so
// is a hash whose fields have all expired (`hexpired`, `del`; hash_gone.go);
// both are reported absent. The key's access time is recorded (access.go),
// found or not: a write path that misses usually creates the key.
func (tx *Tx) Lookup(key []byte) (Meta, bool, error) {
	m, ok, err := tx.lookup(key)
	if err == nil {
		tx.s.access.touch(tx.pdb, key, tx.now, ok, tx.s.lfu())
	}
	return m, ok, err
}

// LookupRead is Lookup for a read path: it also counts keyspace hits and
// misses and emits `keymiss` events, and records the access of a key
// found.
func (tx *Tx) LookupRead(key []byte) (Meta, bool, error) {
	m, ok, err := tx.lookupRead(key)
	if ok {
		tx.s.access.touch(tx.pdb, key, tx.now, true, tx.s.lfu())
	}
	return m, ok, err
}

// expireKey deletes a key that has logically expired and records the
// `expired` event.
func (tx *Tx) expireKey(key []byte, m Meta, lazy bool) error {
	if err := tx.deleteMeta(tx.pdb, key, m, true); err != nil {
		return err
	}
	tx.expired++
	if lazy {
		tx.lazy++
	}
	tx.logExpiry(key, nil, m.ExpireAt)
	tx.notify(ClassExpired, "expired", key)
	return nil
}

// PutMeta writes the metadata of key in the current database. old is the
// record it replaces (found reports whether there was one), which must
// have been read in this Tx. The expiry index follows in the same batch;
// a collection whose version changes leaves its old version to the
// garbage collector.
func (tx *Tx) PutMeta(key []byte, old Meta, found bool, m Meta) error {
	return tx.putMeta(tx.ldb, tx.pdb, key, old, found, m)
}

func (tx *Tx) putMeta(ldb int, pdb byte, key []byte, old Meta, found bool, m Meta) error {
	if invariants.Enabled {
		tx.assertElemBytes(pdb, key, m) // reads, so before b is taken: reading may replace the batch
	}
	b := tx.writer()
	d := &tx.delta[pdb]
	if !found {
		d.keys++
		tx.notifyDB(ldb, ClassNew, "new", key)
	}
	d.sub.put(old, found, m)
	d.bytes += keyCost(len(key), m)
	if found {
		d.bytes -= keyCost(len(key), old)
	}
	if found && old.ExpireAt != 0 && old.ExpireAt != m.ExpireAt {
		tx.ebuf = expiryKey(tx.ebuf, pdb, old.ExpireAt, key)
		if err := b.Delete(tx.ebuf); err != nil {
			return err
		}
		d.expires--
		d.expSum.add(-old.ExpireAt)
		tx.noteDueEntry(pdb, old.ExpireAt, -1)
	}
	if m.ExpireAt != 0 && !(found && old.ExpireAt == m.ExpireAt) {
		tx.ebuf = expiryKey(tx.ebuf, pdb, m.ExpireAt, key)
		if err := b.Set(tx.ebuf, nil); err != nil {
			return err
		}
		if from := &tx.s.dueFrom[pdb]; *from != nil && bytes.Compare(tx.ebuf, *from) < 0 {
			*from = bytes.Clone(tx.ebuf) // lowering is safe even if tx rolls back
		}
		d.expires++
		d.expSum.add(m.ExpireAt)
		tx.noteDueEntry(pdb, m.ExpireAt, 1)
		if tx.wake == 0 || m.ExpireAt < tx.wake {
			tx.wake = m.ExpireAt
		}
	}
	if found && old.Type == TypeStream && (m.Type != TypeStream || old.Version != m.Version) {
		tx.streamGone(ldb, key)
	}
	if found && old.Type != TypeString && (m.Type == TypeString || old.Version != m.Version) {
		if err := tx.dropVersion(pdb, old.Version); err != nil {
			return err
		}
	}
	tx.kbuf = metaKey(tx.kbuf, pdb, key)
	tx.ebuf = m.encode(tx.ebuf[:0])
	if err := b.Set(tx.kbuf, tx.ebuf); err != nil {
		return err
	}
	tx.notePending(tx.kbuf, tx.ebuf)
	tx.touch(ldb, key, false)
	return nil
}

// DeleteMeta deletes key (found by Lookup with record m) from the current
// database, with its expiry entry and, for collections, its elements.
func (tx *Tx) DeleteMeta(key []byte, m Meta) error {
	return tx.deleteMeta(tx.pdb, key, m, false)
}

func (tx *Tx) deleteMeta(pdb byte, key []byte, m Meta, expired bool) error {
	b := tx.writer()
	d := &tx.delta[pdb]
	tx.kbuf = metaKey(tx.kbuf, pdb, key)
	if err := b.Delete(tx.kbuf); err != nil {
		return err
	}
	tx.notePending(tx.kbuf, nil)
	d.keys--
	d.sub.del(m)
	d.bytes -= keyCost(len(key), m)
	if m.ExpireAt != 0 {
		tx.ebuf = expiryKey(tx.ebuf, pdb, m.ExpireAt, key)
		if err := b.Delete(tx.ebuf); err != nil {
			return err
		}
		d.expires--
		d.expSum.add(-m.ExpireAt)
		tx.noteDueEntry(pdb, m.ExpireAt, -1)
	}
	if m.Type != TypeString {
		if err := tx.dropVersion(pdb, m.Version); err != nil {
			return err
		}
	}
	if m.Type == TypeStream {
		tx.streamGone(tx.logical(pdb), key)
	}
	tx.touch(tx.logical(pdb), key, expired)
	return nil
}

// logical maps a physical db back to its logical index.
func (tx *Tx) logical(pdb byte) int {
	for l, p := range tx.dbmap {
		if p == pdb {
			return l
		}
	}
	return int(pdb)
}

// dropVersion hands the sub-keys of an old collection version to the
// garbage collector: one record now, one range deletion later.
func (tx *Tx) dropVersion(pdb byte, version uint64) error {
	tx.garbage = true
	return tx.writer().Set(garbageKey(pdb, version), nil)
}

// NewVersion returns a collection version never handed out before.
func (tx *Tx) NewVersion() uint64 {
	tx.s.version++
	tx.versioned = true
	return tx.s.version
}

// SubPrefix returns the prefix under which the elements of the collection
// m of the current database live.
func (tx *Tx) SubPrefix(m Meta) []byte { return subPrefix(tx.pdb, m.Version) }

// Batch returns the Tx's indexed batch, for the collection types' element
// reads and writes.
func (tx *Tx) Batch() *storage.Batch { return tx.batch() }

// MaxStringSize returns the configured largest string.
func (tx *Tx) MaxStringSize() int64 { return tx.s.maxString.Load() }
