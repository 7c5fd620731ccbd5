package kv

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// indexSource is the expiry source over one expiry index of one logical
// database: the key index or the hash-field index. Both hold entries
// [PrefixExpiry][index db][at u64][key] in due order, and both are reaped
// the same way: one Tx per batch walks the due entries and the index's
// reaper deletes what they stand for. An entry with expireAt E is due at
// E+1 ms, the first millisecond at which Redis's rule (now > E) hides its
// item, so the sweeper never deletes an item a read could still see.
type indexSource struct {
	s      *Store
	db     int
	name   string
	kind   expiry.Kind
	field  bool // the hash-field index (fieldExpiryDB)
	reaper indexReaper

	// resumeAfter is the last entry a batch of the pass at resumeNow (Unix
	// ms) handled. The next batch of the same pass starts just after it
	// instead of stepping again over the tombstones of everything the pass
	// already deleted. An entry indexed behind it during the pass waits
	// for the next pass (reads hide its item meanwhile). Only the sweeper's
	// goroutine reaps, so these need no lock.
	resumeAfter []byte
	resumeNow   int64

	// Buffers reused by every batch (sweeper goroutine only).
	entries []indexEntry
	buf     []byte
}

// indexEntry is one due entry of a batch: its expiry time, its index key
// and the item's key, both slices of the batch's buffer, valid until the
// batch ends.
type indexEntry struct {
	at      int64
	ek, key []byte
}

// indexReaper deletes what the due entries of one kind of index stand for.
type indexReaper interface {
	// reapEntries deletes in tx the items of entries, in order, deleting
	// at most max items, and counts them in r (Items, Keys, Due, Skipped
	// for stale entries removed). It returns how many entries it handled
	// completely; the next batch starts after the last of them.
	reapEntries(tx *Tx, entries []indexEntry, max int, r *expiry.Reaped) (handled int, err error)
	// countDue implements expiry.Counter for the index.
	countDue(ctx context.Context, src *indexSource, now time.Time) (int64, time.Time, time.Time, error)
}

var (
	_ expiry.Source  = (*indexSource)(nil)
	_ expiry.Counter = (*indexSource)(nil)
)

// newKeySource returns the expiry source of the keys of logical database
// db.
func newKeySource(s *Store, db int) *indexSource {
	return &indexSource{s: s, db: db, name: fmt.Sprintf("redis_keys:db%d", db), kind: expiry.KindRedisKeys, reaper: &keyReaper{}}
}

func (x *indexSource) Name() string      { return x.name }
func (x *indexSource) Kind() expiry.Kind { return x.kind }

// indexDB is the db byte of the index in physical database pdb.
func (x *indexSource) indexDB(pdb byte) byte {
	if x.field {
		return fieldExpiryDB | pdb
	}
	return pdb
}

// NextDue seeks the first entry of the index.
func (x *indexSource) NextDue(ctx context.Context) (time.Time, bool, error) {
	lo := expiryPrefix(x.indexDB(x.s.dbmapAtomic.Load()[x.db]))
	it, err := x.s.st.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("kv: %s next due: %w", x.name, err)
	}
	defer it.Close()
	if !it.First() {
		return time.Time{}, false, it.Error()
	}
	at, _, ok := decodeExpiryKey(it.Key())
	if !ok {
		return time.Time{}, false, fmt.Errorf("%w: %s index key", ErrCorrupt, x.name)
	}
	return time.UnixMilli(at + 1), true, nil
}

// CountDue counts the items due at or before now.
func (x *indexSource) CountDue(ctx context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	return x.reaper.countDue(ctx, x, now)
}

// ReapBatch reaps the items of the entries due at or before now in one Tx,
// at most b.Max of them. It reads the index from the store itself, not
// through the Tx's indexed batch: nothing is written until the reads are
// done, and the Tx holds the store's lock, so both see the same data.
func (x *indexSource) ReapBatch(ctx context.Context, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	var r expiry.Reaped
	if err := ctx.Err(); err != nil {
		return r, err
	}
	max := max(b.Max, 1)
	tx := x.s.Begin()
	tx.SetNow(now)
	tx.Use(x.db)
	idb := x.indexDB(tx.pdb)
	lo := expiryPrefix(idb)
	if x.resumeAfter != nil && x.resumeNow == now.UnixMilli() && bytes.HasPrefix(x.resumeAfter, lo) {
		lo = append(append([]byte(nil), x.resumeAfter...), 0) // the smallest key after it
	}
	it, err := tx.reader().NewIter(lo, expiryKey(nil, idb, tx.now, nil)) // the store itself, once the commit before tx is applied
	if err != nil {
		tx.Rollback()
		return r, err
	}
	entries, buf := x.entries[:0], x.buf[:0]
	more := false
	for ok := it.First(); ok; ok = it.Next() {
		if len(entries) == max {
			more = true
			break
		}
		ek := it.Key()
		at, _, ok := decodeExpiryKey(ek)
		if !ok {
			continue
		}
		start := len(buf)
		buf = append(buf, ek...)
		entries = append(entries, indexEntry{at: at, ek: buf[start:len(buf):len(buf)]})
	}
	if err := it.Close(); err != nil {
		tx.Rollback()
		return r, err
	}
	for i := range entries {
		_, entries[i].key, _ = decodeExpiryKey(entries[i].ek)
	}
	handled, err := x.reaper.reapEntries(tx, entries, max, &r)
	if err != nil {
		tx.Rollback()
		return expiry.Reaped{}, err
	}
	var last []byte
	if handled > 0 {
		last = bytes.Clone(entries[handled-1].ek)
	}
	x.entries, x.buf = entries[:0], buf[:0]
	if err := tx.Commit(); err != nil {
		return expiry.Reaped{}, fmt.Errorf("kv: reap %s: %w", x.name, err)
	}
	r.More = more || handled < len(entries)
	if r.More && last != nil {
		x.resumeAfter, x.resumeNow = last, now.UnixMilli()
	} else if !r.More {
		x.resumeAfter = nil
	}
	return r, nil
}

// keyReaper reaps the entries of the key index: each due key is deleted
// with an `expired` event and counts in expired_keys.
type keyReaper struct {
	// Buffers reused by every batch (sweeper goroutine only).
	metas []foundMeta
	keys  [][]byte
}

// reapEntries expires the keys of entries. Their metadata is read in one
// pass (readMetas); an entry whose key is gone or has another expiry is
// stale and removed.
func (k *keyReaper) reapEntries(tx *Tx, entries []indexEntry, _ int, r *expiry.Reaped) (int, error) {
	tx.forgetDeleted = true
	keys := k.keys[:0]
	for _, e := range entries {
		keys = append(keys, e.key)
	}
	metas, err := tx.readMetas(tx.pdb, keys, k.metas[:0])
	k.keys = keys[:0]
	if err != nil {
		return 0, err
	}
	n := 0
	for i, e := range entries {
		m, ok := metas[i].m, metas[i].ok
		if !ok || m.ExpireAt != e.at {
			// A stale index entry (never written by kv, but harmless).
			if err := tx.batch().Delete(e.ek); err != nil {
				return 0, err
			}
			tx.noteDueEntry(tx.pdb, e.at, -1)
			r.Skipped++
			continue
		}
		if err := tx.expireKey(e.key, m, false); err != nil {
			return 0, err
		}
		r.Due = append(r.Due, e.at+1)
		n++
	}
	k.metas = metas[:0]
	r.Items += n
	r.Keys += n
	return len(entries), nil
}

// countDue counts the key index's entries due at or before now from the
// store's count of due entries (dueCount, exact under the store's lock,
// which walks only the entries that fell due since it was last brought up
// to date), and seeks the first and the last of them for their due
// times. A walk of every due entry would grow with the backlog, and the
// sweeper, which counts while it falls behind, would fall further behind.
func (k *keyReaper) countDue(ctx context.Context, x *indexSource, now time.Time) (int64, time.Time, time.Time, error) {
	if err := ctx.Err(); err != nil {
		return 0, time.Time{}, time.Time{}, err
	}
	tx := x.s.Begin()
	defer tx.Rollback()
	tx.SetNow(now)
	if err := tx.Use(x.db); err != nil {
		return 0, time.Time{}, time.Time{}, err
	}
	n, _, err := tx.due()
	if err != nil || n == 0 {
		return 0, time.Time{}, time.Time{}, wrapCountDue(x, err)
	}
	lo := tx.s.dueFrom[tx.pdb]
	if lo == nil {
		lo = expiryPrefix(tx.pdb)
	}
	it, err := tx.reader().NewIter(lo, expiryKey(nil, tx.pdb, tx.now, nil))
	if err != nil {
		return 0, time.Time{}, time.Time{}, wrapCountDue(x, err)
	}
	defer it.Close()
	var oldest, newest time.Time
	for ok := it.First(); ok && oldest.IsZero(); ok = it.Next() {
		if at, _, ok := decodeExpiryKey(it.Key()); ok {
			oldest = time.UnixMilli(at + 1)
		}
	}
	for ok := it.Last(); ok && newest.IsZero(); ok = it.Prev() {
		if at, _, ok := decodeExpiryKey(it.Key()); ok {
			newest = time.UnixMilli(at + 1)
		}
	}
	return n, oldest, newest, wrapCountDue(x, it.Error())
}

// wrapCountDue gives a count's error the source's name.
func wrapCountDue(x *indexSource, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("kv: %s count due: %w", x.name, err)
}

// foundMeta is the metadata read for one due entry.
type foundMeta struct {
	m  Meta
	ok bool
}

// readMetas reads the metadata records of keys in physical db pdb, as
// getMeta would one by one: the Tx's own writes and the cache first, then
// storage. The records storage must supply are read with one iterator
// seeking through them in key order, which costs a fraction of a point
// read each: the keys the sweeper reaps are mostly not in the cache.
func (tx *Tx) readMetas(pdb byte, keys [][]byte, out []foundMeta) ([]foundMeta, error) {
	var misses []int
	for i, key := range keys {
		tx.kbuf = metaKey(tx.kbuf, pdb, key)
		var rec []byte
		var known bool
		if !tx.flushed[pdb] {
			if rec, known = tx.pending[string(tx.kbuf)]; !known {
				rec, known = tx.s.cache.get(tx.kbuf)
			}
		}
		if !known {
			misses = append(misses, i)
			out = append(out, foundMeta{})
			continue
		}
		f, err := decodeFound(key, bytes.Clone(rec))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if len(misses) == 0 {
		return out, nil
	}
	slices.SortFunc(misses, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
	lo := metaPrefix(pdb)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo)) // waits for the commit before the Tx
	if err != nil {
		return nil, err
	}
	for _, i := range misses {
		tx.kbuf = metaKey(tx.kbuf, pdb, keys[i])
		if !it.SeekGE(tx.kbuf) || !bytes.Equal(it.Key(), tx.kbuf) {
			continue // absent: foundMeta{} already
		}
		f, err := decodeFound(keys[i], bytes.Clone(it.Value()))
		if err != nil {
			it.Close()
			return nil, err
		}
		out[i] = f
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("kv: read metadata: %w", err)
	}
	return out, nil
}

// decodeFound decodes the record rec of key (nil: absent).
func decodeFound(key, rec []byte) (foundMeta, error) {
	if rec == nil {
		return foundMeta{}, nil
	}
	m, err := decodeMeta(rec)
	if err != nil {
		return foundMeta{}, fmt.Errorf("kv: key %q: %w", key, err)
	}
	return foundMeta{m: m, ok: true}, nil
}
