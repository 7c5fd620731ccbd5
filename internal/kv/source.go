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

// keySource is the expiry source of the keys of one logical database. A key
// with expireAt E is due at E+1 ms, the first millisecond at which Redis's
// rule (now > E) hides it, so the sweeper never deletes a key a read could
// still see.
type keySource struct {
	s  *Store
	db int

	// resumeAfter is the last expiry-index key a Reap of the pass at
	// resumeNow (Unix ms) handled. The next Reap of the same pass starts just
	// after it instead of stepping again over the tombstones of everything the
	// pass already deleted, which made a storm quadratic. A key indexed behind
	// it during the pass waits for the next pass (reads hide it meanwhile).
	// Only the sweeper's goroutine calls Reap, so these need no lock.
	resumeAfter []byte
	resumeNow   int64

	// Buffers reused by every batch (sweeper goroutine only).
	due   []dueKey
	buf   []byte
	metas []foundMeta
	keys  [][]byte
}

var (
	_ expiry.Source  = (*keySource)(nil)
	_ expiry.Counter = (*keySource)(nil)
)

func (k *keySource) Name() string      { return fmt.Sprintf("redis_keys:db%d", k.db) }
func (k *keySource) Kind() expiry.Kind { return expiry.KindRedisKeys }

func (k *keySource) pdb() byte { return k.s.dbmapAtomic.Load()[k.db] }

// NextDue seeks the first entry of the database's expiry index.
func (k *keySource) NextDue(ctx context.Context) (time.Time, bool, error) {
	lo := expiryPrefix(k.pdb())
	it, err := k.s.st.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("kv: %s next due: %w", k.Name(), err)
	}
	defer it.Close()
	if !it.First() {
		return time.Time{}, false, it.Error()
	}
	at, _, ok := decodeExpiryKey(it.Key())
	if !ok {
		return time.Time{}, false, fmt.Errorf("%w: expiry index key", ErrCorrupt)
	}
	return time.UnixMilli(at + 1), true, nil
}

// CountDue counts the keys due at or before now.
func (k *keySource) CountDue(ctx context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	pdb := k.pdb()
	lo := expiryPrefix(pdb)
	it, err := k.s.st.NewIter(lo, expiryKey(nil, pdb, now.UnixMilli(), nil))
	if err != nil {
		return 0, time.Time{}, time.Time{}, fmt.Errorf("kv: %s count due: %w", k.Name(), err)
	}
	defer it.Close()
	var n int64
	var oldest, newest time.Time
	for ok := it.First(); ok; ok = it.Next() {
		if n%4096 == 0 && ctx.Err() != nil {
			return 0, oldest, newest, ctx.Err()
		}
		at, _, ok := decodeExpiryKey(it.Key())
		if !ok {
			continue
		}
		if n == 0 {
			oldest = time.UnixMilli(at + 1)
		}
		newest = time.UnixMilli(at + 1)
		n++
	}
	return n, oldest, newest, it.Error()
}

// Reap deletes the keys due at or before now in batches of budget.BatchSize,
// each in its own Tx so clients run between batches. Every deleted key gets
// an `expired` event and counts in expired_keys.
func (k *keySource) Reap(ctx context.Context, now time.Time, budget expiry.Budget) (expiry.Reaped, error) {
	var r expiry.Reaped
	batch := budget.BatchSize
	if batch <= 0 {
		batch = 1000
	}
	for {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		limit := batch
		if budget.MaxItems > 0 && budget.MaxItems-r.Items < limit {
			limit = budget.MaxItems - r.Items
		}
		n, more, err := k.reapBatch(now, limit, &r)
		if err != nil {
			return r, err
		}
		if !more {
			return r, nil
		}
		if (budget.MaxItems > 0 && r.Items >= budget.MaxItems) ||
			(!budget.Deadline.IsZero() && !k.s.opts.Now().Before(budget.Deadline)) || n == 0 {
			r.More = true
			return r, nil
		}
	}
}

// reapBatch deletes up to limit due keys in one Tx. It reads the expiry
// index and the keys' metadata from the store itself, not through the Tx's
// indexed batch: nothing is written until every read is done, and the Tx
// holds the store's lock, so both see the same data, and a plain read
// skips merging an (empty) batch. The reads of one batch share one
// buffer.
func (k *keySource) reapBatch(now time.Time, limit int, r *expiry.Reaped) (int, bool, error) {
	tx := k.s.Begin()
	tx.SetNow(now)
	tx.Use(k.db)
	tx.forgetDeleted = true
	lo := expiryPrefix(tx.pdb)
	if k.resumeAfter != nil && k.resumeNow == now.UnixMilli() && bytes.HasPrefix(k.resumeAfter, lo) {
		lo = append(append([]byte(nil), k.resumeAfter...), 0) // the smallest key after it
	}
	hi := expiryKey(nil, tx.pdb, tx.now, nil)
	it, err := tx.reader().NewIter(lo, hi) // the store itself, once the commit before tx is applied
	if err != nil {
		tx.Rollback()
		return 0, false, err
	}
	due := k.due[:0]
	buf := k.buf[:0]
	var last []byte
	more := false
	for ok := it.First(); ok; ok = it.Next() {
		if len(due) == limit {
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
		due = append(due, dueKey{at: at, start: start, end: len(buf)})
	}
	if err := it.Close(); err != nil {
		tx.Rollback()
		return 0, false, err
	}
	if n := len(due); n > 0 {
		last = append([]byte(nil), buf[due[n-1].start:due[n-1].end]...)
	}
	keys := k.keys[:0]
	for _, e := range due {
		_, key, _ := decodeExpiryKey(buf[e.start:e.end])
		keys = append(keys, key)
	}
	metas, err := tx.readMetas(tx.pdb, keys, k.metas[:0])
	if err != nil {
		tx.Rollback()
		return 0, false, err
	}
	k.keys = keys[:0]
	n := 0
	for i, e := range due {
		_, key, _ := decodeExpiryKey(buf[e.start:e.end])
		m, ok := metas[i].m, metas[i].ok
		if !ok || m.ExpireAt != e.at {
			// A stale index entry (never written by kv, but harmless).
			if err := tx.batch().Delete(buf[e.start:e.end]); err != nil {
				tx.Rollback()
				return 0, false, err
			}
			tx.noteDueEntry(tx.pdb, e.at, -1)
			continue
		}
		if err := tx.expireKey(key, m, false); err != nil {
			tx.Rollback()
			return 0, false, err
		}
		r.Due = append(r.Due, e.at+1)
		n++
	}
	k.due, k.buf, k.metas = due[:0], buf[:0], metas[:0]
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("kv: reap %s: %w", k.Name(), err)
	}
	if more {
		k.resumeAfter, k.resumeNow = last, now.UnixMilli()
	} else {
		k.resumeAfter = nil
	}
	r.Items += n
	r.Keys += n
	return n, more, nil
}

// dueKey is one due entry of a reap batch: its expiry time and where its
// expiry-index key lies in the batch's buffer.
type dueKey struct {
	at         int64
	start, end int
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
// read each: a storm's keys are mostly not in the cache, and their point
// reads were 79% of the reaper's CPU.
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
