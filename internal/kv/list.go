package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Lists. A list's record carries, after the element count, the index of
// its first element and one past its last (head and tail, 8 bytes each);
// element i (from the head) is the sub-key [version][head+i] (8 bytes,
// big-endian), so LINDEX, LSET and the pushes and pops at both ends touch
// one sub-key, LRANGE is one ordered walk, and LTRIM or a pop of many
// elements is a range deletion. A new list starts in the middle of the
// index space so it can grow both ways. LINSERT shifts the shorter side;
// LREM rewrites the list.

// ListEnd names one end of a list.
type ListEnd uint8

// The ends of a list.
const (
	ListLeft  ListEnd = iota // the head (LPUSH, LPOP)
	ListRight                // the tail (RPUSH, RPOP)
)

const (
	listMid        = uint64(1) << 63
	listPayloadLen = 8 + 8 + 8
)

// listState is a list as read in a Tx: its record (orig, when found) and
// its bounds.
type listState struct {
	orig       Meta
	found      bool
	version    uint64
	expireAt   int64
	head, tail uint64 // elements live at [head, tail)
	elems      int64  // element bytes (elembytes.go), as stored + this command's changes
}

func (l *listState) len() int64 { return int64(l.tail - l.head) }

// lookupColl looks key up for a collection command of type t: read paths
// count keyspace hits and misses as Redis's lookupKeyRead does.
func (tx *Tx) lookupColl(key []byte, t Type, read bool) (Meta, bool, error) {
	var m Meta
	var ok bool
	var err error
	if read {
		m, ok, err = tx.LookupRead(key)
	} else {
		m, ok, err = tx.Lookup(key)
	}
	if err != nil || !ok {
		return Meta{}, false, err
	}
	if m.Type != t {
		return Meta{}, false, ErrWrongType
	}
	return m, true, nil
}

// elemKey returns the sub-key of an element of collection version v in
// the current database: the version prefix followed by parts.
func (tx *Tx) elemKey(v uint64, parts ...[]byte) []byte {
	n := 2 + 8
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	k = append(k, storage.PrefixRedisSub, tx.pdb)
	k = binary.BigEndian.AppendUint64(k, v)
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), v) }

// deleteColl deletes a collection that became empty, with Redis's `del`
// event.
func (tx *Tx) deleteColl(key []byte, m Meta) error {
	if err := tx.DeleteMeta(key, m); err != nil {
		return err
	}
	tx.notify(ClassGeneric, "del", key)
	return nil
}

// listFor reads the list at key; a missing key gives an empty state that
// saving turns into a new list.
func (tx *Tx) listFor(key []byte, read bool) (listState, error) {
	m, ok, err := tx.lookupColl(key, TypeList, read)
	if err != nil || !ok {
		return listState{head: listMid, tail: listMid}, err
	}
	if len(m.Payload) < listPayloadLen {
		return listState{}, fmt.Errorf("%w: list %q record of %d bytes", ErrCorrupt, key, len(m.Payload))
	}
	return listState{
		orig:     m,
		found:    true,
		version:  m.Version,
		expireAt: m.ExpireAt,
		head:     binary.BigEndian.Uint64(m.Payload[8:16]),
		tail:     binary.BigEndian.Uint64(m.Payload[16:24]),
		elems:    m.ElemBytes,
	}, nil
}

// listSave stores the list's record after its elements changed: an empty
// list is deleted (with `del`), a new one gets a fresh version. In-place
// changes keep the expiry.
func (tx *Tx) listSave(key []byte, l *listState) error {
	if l.len() == 0 {
		if l.found {
			orig := l.orig
			*l = listState{head: listMid, tail: listMid} // a later push starts a new list
			return tx.deleteColl(key, orig)
		}
		return nil
	}
	p := make([]byte, listPayloadLen)
	binary.BigEndian.PutUint64(p[0:8], uint64(l.len()))
	binary.BigEndian.PutUint64(p[8:16], l.head)
	binary.BigEndian.PutUint64(p[16:24], l.tail)
	nm := Meta{Type: TypeList, Version: l.version, ExpireAt: l.expireAt, Payload: p}
	var err error
	if nm.ElemBytes, err = tx.savedElemBytes(l.orig, l.found, l.elems, nm); err != nil {
		return err
	}
	if err := tx.PutMeta(key, l.orig, l.found, nm); err != nil {
		return err
	}
	l.orig, l.found = nm, true
	return nil
}

// listNew gives a missing list a version before its first element.
func (tx *Tx) listNew(l *listState) {
	if !l.found && l.version == 0 {
		l.version = tx.NewVersion()
		l.head, l.tail = listMid, listMid
	}
}

func (tx *Tx) listKey(l *listState, idx uint64) []byte { return tx.elemKey(l.version, u64(idx)) }

// listPush adds vals at one end, in argument order (so LPUSH a b c leaves
// c first).
func (tx *Tx) listPush(l *listState, end ListEnd, vals [][]byte) error {
	tx.listNew(l)
	b := tx.indexedBatch()
	for _, v := range vals {
		var idx uint64
		if end == ListLeft {
			l.head--
			idx = l.head
		} else {
			idx = l.tail
			l.tail++
		}
		if err := b.Set(tx.listKey(l, idx), v); err != nil {
			return err
		}
		l.elems += int64(len(v))
	}
	return nil
}

// listDropRange deletes the elements at indexes [lo, hi) with one range
// deletion, after a walk that takes their bytes off the element bytes.
func (tx *Tx) listDropRange(l *listState, lo, hi uint64) error {
	from, to := tx.listKey(l, lo), tx.listKey(l, hi)
	it, err := tx.reader().NewIter(from, to)
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		l.elems -= int64(len(it.Value()))
	}
	if err := it.Close(); err != nil {
		return err
	}
	return tx.batch().DeleteRange(from, to)
}

// listRange returns the elements at positions [from, to] (0-based from the
// head, already clamped), in order, or reversed.
func (tx *Tx) listRange(l *listState, from, to int64, reverse bool) ([][]byte, error) {
	if from > to {
		return [][]byte{}, nil
	}
	lo := tx.listKey(l, l.head+uint64(from))
	hi := tx.listKey(l, l.head+uint64(to)+1)
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, to-from+1)
	if reverse {
		for ok := it.Last(); ok; ok = it.Prev() {
			out = append(out, append([]byte{}, it.Value()...))
		}
	} else {
		for ok := it.First(); ok; ok = it.Next() {
			out = append(out, append([]byte{}, it.Value()...))
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if int64(len(out)) != to-from+1 {
		return nil, fmt.Errorf("%w: list has %d of %d elements", ErrCorrupt, len(out), to-from+1)
	}
	return out, nil
}

// listPop removes up to n elements from one end and returns them in pop
// order (one range deletion).
func (tx *Tx) listPop(l *listState, end ListEnd, n int64) ([][]byte, error) {
	n = min(n, l.len())
	if n <= 0 {
		return nil, nil
	}
	var out [][]byte
	var err error
	var lo, hi uint64
	if end == ListLeft {
		out, err = tx.listRange(l, 0, n-1, false)
		lo, hi = l.head, l.head+uint64(n)
		l.head = hi
	} else {
		out, err = tx.listRange(l, l.len()-n, l.len()-1, true)
		lo, hi = l.tail-uint64(n), l.tail
		l.tail = lo
	}
	if err != nil {
		return nil, err
	}
	if err := tx.batch().DeleteRange(tx.listKey(l, lo), tx.listKey(l, hi)); err != nil {
		return nil, err
	}
	for _, v := range out {
		l.elems -= int64(len(v))
	}
	return out, nil
}

// rangeBounds clamps Redis's start/stop indexes (negative counting from the
// end) to [0, n); ok is false for an empty range.
func rangeBounds(start, stop, n int64) (int64, int64, bool) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0, false
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop, true
}

func pushEvent(end ListEnd) string {
	if end == ListLeft {
		return "lpush"
	}
	return "rpush"
}

func popEvent(end ListEnd) string {
	if end == ListLeft {
		return "lpop"
	}
	return "rpop"
}

// Push adds vals to one end of the list at key (LPUSH, RPUSH) and returns
// its new length. With xx (LPUSHX, RPUSHX) a missing key is left alone and
// the result is 0. The expiry is kept; the event is `lpush` or `rpush`.
func (tx *Tx) Push(key []byte, end ListEnd, xx bool, vals [][]byte) (int64, error) {
	l, err := tx.listFor(key, false)
	if err != nil {
		return 0, err
	}
	if !l.found && xx {
		return 0, nil
	}
	if err := tx.listPush(&l, end, vals); err != nil {
		return 0, err
	}
	if err := tx.listSave(key, &l); err != nil {
		return 0, err
	}
	tx.notify(ClassList, pushEvent(end), key)
	return l.len(), nil
}

// Pop removes up to n elements from one end of the list at key (LPOP,
// RPOP) and returns them; ok is false when the key is missing. Events:
// `lpop` or `rpop`, then `del` when the list is emptied.
func (tx *Tx) Pop(key []byte, end ListEnd, n int64) ([][]byte, bool, error) {
	l, err := tx.listFor(key, false)
	if err != nil || !l.found {
		return nil, false, err
	}
	if n <= 0 {
		return [][]byte{}, true, nil
	}
	out, err := tx.listPop(&l, end, n)
	if err != nil {
		return nil, false, err
	}
	tx.notify(ClassList, popEvent(end), key)
	if err := tx.listSave(key, &l); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// PopFirst pops one element from the first non-empty list among keys, in
// order (the non-blocking step of BLPOP and BRPOP). A key of another type
// met before a non-empty list is an error.
func (tx *Tx) PopFirst(keys [][]byte, end ListEnd) (key, val []byte, ok bool, err error) {
	key, vals, ok, err := tx.MPop(keys, end, 1)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return key, vals[0], true, nil
}

// MPop pops up to n elements (n > 0) from one end of the first list among
// keys, in order, as LMPOP and BLMPOP: missing keys are skipped, a key of
// another type met before a list is an error. ok is false when no key
// holds a list. Events: `lpop` or `rpop`, then `del` when emptied.
func (tx *Tx) MPop(keys [][]byte, end ListEnd, n int64) (key []byte, vals [][]byte, ok bool, err error) {
	for _, k := range keys {
		l, err := tx.listFor(k, false)
		if err != nil {
			return nil, nil, false, err
		}
		if !l.found {
			continue
		}
		out, err := tx.listPop(&l, end, n)
		if err != nil {
			return nil, nil, false, err
		}
		tx.notify(ClassList, popEvent(end), k)
		if err := tx.listSave(k, &l); err != nil {
			return nil, nil, false, err
		}
		return k, out, true, nil
	}
	return nil, nil, false, nil
}

// LLen returns the length of the list at key (0 when missing).
func (tx *Tx) LLen(key []byte) (int64, error) {
	l, err := tx.listFor(key, true)
	return l.len(), err
}

// LRange returns the elements between start and stop inclusive, negative
// indexes counting from the tail.
func (tx *Tx) LRange(key []byte, start, stop int64) ([][]byte, error) {
	l, err := tx.listFor(key, true)
	if err != nil {
		return nil, err
	}
	from, to, ok := rangeBounds(start, stop, l.len())
	if !ok {
		return [][]byte{}, nil
	}
	return tx.listRange(&l, from, to, false)
}

// LIndex returns the element at index (negative from the tail); ok is
// false when the key is missing or the index outside the list.
func (tx *Tx) LIndex(key []byte, index int64) ([]byte, bool, error) {
	l, err := tx.listFor(key, true)
	if err != nil || !l.found {
		return nil, false, err
	}
	if index < 0 {
		index += l.len()
	}
	if index < 0 || index >= l.len() {
		return nil, false, nil
	}
	v, err := tx.reader().Get(tx.listKey(&l, l.head+uint64(index)))
	if err != nil {
		return nil, false, fmt.Errorf("kv: list %q element %d: %w", key, index, err)
	}
	return v, true, nil
}

// LSet replaces the element at index. It returns ErrNoSuchKey for a missing
// key and ErrIndexOutOfRange for an index outside the list; the event is
// `lset`.
func (tx *Tx) LSet(key []byte, index int64, val []byte) error {
	l, err := tx.listFor(key, false)
	if err != nil {
		return err
	}
	if !l.found {
		return ErrNoSuchKey
	}
	if index < 0 {
		index += l.len()
	}
	if index < 0 || index >= l.len() {
		return ErrIndexOutOfRange
	}
	k := tx.listKey(&l, l.head+uint64(index))
	old, err := tx.reader().Get(k)
	if err != nil {
		return fmt.Errorf("kv: list %q element %d: %w", key, index, err)
	}
	l.elems += int64(len(val) - len(old))
	if err := tx.batch().Set(k, val); err != nil {
		return err
	}
	tx.notify(ClassList, "lset", key)
	return tx.listSave(key, &l)
}

// LTrim keeps only the elements between start and stop inclusive, with two
// range deletions; an empty result deletes the key. Events: `ltrim`, then
// `del` when emptied.
func (tx *Tx) LTrim(key []byte, start, stop int64) error {
	l, err := tx.listFor(key, false)
	if err != nil || !l.found {
		return err
	}
	n := l.len()
	from, to, ok := rangeBounds(start, stop, n)
	if !ok {
		from, to = n, n-1
	}
	if from > 0 {
		if err := tx.listDropRange(&l, l.head, l.head+uint64(from)); err != nil {
			return err
		}
	}
	if to < n-1 {
		if err := tx.listDropRange(&l, l.head+uint64(to)+1, l.tail); err != nil {
			return err
		}
	}
	l.head, l.tail = l.head+uint64(from), l.head+uint64(to)+1
	tx.notify(ClassList, "ltrim", key)
	return tx.listSave(key, &l)
}

// LRem removes the first count occurrences of val (count > 0 from the
// head, count < 0 from the tail, 0 all) and returns how many went. Events:
// `lrem`, then `del` when emptied.
func (tx *Tx) LRem(key []byte, count int64, val []byte) (int64, error) {
	l, err := tx.listFor(key, false)
	if err != nil || !l.found {
		return 0, err
	}
	all, err := tx.listRange(&l, 0, l.len()-1, false)
	if err != nil {
		return 0, err
	}
	remove := make([]bool, len(all))
	var removed int64
	limit := count
	if limit < 0 {
		limit = -limit
	}
	if count >= 0 {
		for i := range all {
			if bytes.Equal(all[i], val) {
				remove[i] = true
				removed++
				if limit > 0 && removed == limit {
					break
				}
			}
		}
	} else {
		for i := len(all) - 1; i >= 0; i-- {
			if bytes.Equal(all[i], val) {
				remove[i] = true
				removed++
				if removed == limit {
					break
				}
			}
		}
	}
	if removed == 0 {
		return 0, nil
	}
	if err := tx.batch().DeleteRange(tx.listKey(&l, l.head), tx.listKey(&l, l.tail)); err != nil {
		return 0, err
	}
	var keep [][]byte
	for i, v := range all {
		l.elems -= int64(len(v))
		if !remove[i] {
			keep = append(keep, v)
		}
	}
	l.tail = l.head
	if err := tx.listPush(&l, ListRight, keep); err != nil {
		return 0, err
	}
	tx.notify(ClassList, "lrem", key)
	return removed, tx.listSave(key, &l)
}

// LInsert inserts val before or after the first occurrence of pivot and
// returns the new length, -1 when pivot is not found and 0 when the key is
// missing. The shorter side of the list moves by one; the event is
// `linsert`.
func (tx *Tx) LInsert(key []byte, before bool, pivot, val []byte) (int64, error) {
	l, err := tx.listFor(key, false)
	if err != nil || !l.found {
		return 0, err
	}
	it, err := tx.reader().NewIter(tx.listKey(&l, l.head), tx.listKey(&l, l.tail))
	if err != nil {
		return 0, err
	}
	pos := int64(-1)
	var i int64
	for ok := it.First(); ok; ok = it.Next() {
		if bytes.Equal(it.Value(), pivot) {
			pos = i
			break
		}
		i++
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	if pos < 0 {
		return -1, nil
	}
	at := pos // the new element's position
	if !before {
		at = pos + 1
	}
	n := l.len()
	b := tx.batch()
	if at < n-at {
		// Move [0, at) one step towards the head.
		moved, err := tx.listRange(&l, 0, at-1, false)
		if err != nil {
			return 0, err
		}
		for j, v := range moved {
			if err := b.Set(tx.listKey(&l, l.head-1+uint64(j)), v); err != nil {
				return 0, err
			}
		}
		l.head--
	} else {
		// Move [at, n) one step towards the tail.
		moved, err := tx.listRange(&l, at, n-1, false)
		if err != nil {
			return 0, err
		}
		for j, v := range moved {
			if err := b.Set(tx.listKey(&l, l.head+uint64(at)+1+uint64(j)), v); err != nil {
				return 0, err
			}
		}
		l.tail++
	}
	if err := b.Set(tx.listKey(&l, l.head+uint64(at)), val); err != nil {
		return 0, err
	}
	l.elems += int64(len(val))
	tx.notify(ClassList, "linsert", key)
	if err := tx.listSave(key, &l); err != nil {
		return 0, err
	}
	return l.len(), nil
}

// LPos returns the indexes of the matches of val: rank counts matches from
// the head (negative: from the tail, -1 being the last match), count is how
// many to return (0: all) and maxlen how many elements to compare at most
// (0: all). Indexes are LINDEX's, whatever the direction.
func (tx *Tx) LPos(key, val []byte, rank, count, maxlen int64) ([]int64, error) {
	l, err := tx.listFor(key, true)
	if err != nil || !l.found {
		return nil, err
	}
	it, err := tx.reader().NewIter(tx.listKey(&l, l.head), tx.listKey(&l, l.tail))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	reverse := rank < 0
	if reverse {
		rank = -rank
	}
	var out []int64
	var matches, scanned int64
	ok := it.First()
	if reverse {
		ok = it.Last()
	}
	n := l.len()
	for ; ok && (maxlen == 0 || scanned < maxlen); scanned++ {
		if bytes.Equal(it.Value(), val) {
			matches++
			if matches >= rank {
				idx := scanned
				if reverse {
					idx = n - scanned - 1
				}
				out = append(out, idx)
				if count > 0 && int64(len(out)) >= count {
					break
				}
			}
		}
		if reverse {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	return out, it.Error()
}

// LMove pops an element from one end of src and pushes it to one end of
// dst (LMOVE, RPOPLPUSH), returning it; ok is false when src is missing.
// A dst of another type is an error and nothing moves. Events, as Redis
// emits them: the push on dst, then the pop on src (and `del` when src is
// emptied).
func (tx *Tx) LMove(src, dst []byte, from, to ListEnd) ([]byte, bool, error) {
	sl, err := tx.listFor(src, false)
	if err != nil || !sl.found {
		return nil, false, err
	}
	if bytes.Equal(src, dst) {
		vals, err := tx.listPop(&sl, from, 1)
		if err != nil {
			return nil, false, err
		}
		if err := tx.listPush(&sl, to, vals); err != nil {
			return nil, false, err
		}
		if err := tx.listSave(src, &sl); err != nil {
			return nil, false, err
		}
		tx.notify(ClassList, pushEvent(to), dst)
		tx.notify(ClassList, popEvent(from), src)
		return vals[0], true, nil
	}
	dl, err := tx.listFor(dst, false)
	if err != nil {
		return nil, false, err
	}
	vals, err := tx.listPop(&sl, from, 1)
	if err != nil {
		return nil, false, err
	}
	if err := tx.listPush(&dl, to, vals); err != nil {
		return nil, false, err
	}
	if err := tx.listSave(dst, &dl); err != nil {
		return nil, false, err
	}
	tx.notify(ClassList, pushEvent(to), dst)
	tx.notify(ClassList, popEvent(from), src)
	if err := tx.listSave(src, &sl); err != nil {
		return nil, false, err
	}
	return vals[0], true, nil
}

// CheckType reports whether key exists with type t and returns
// ErrWrongType when it holds another type, without counting a keyspace
// hit: the wire layer checks the type first where Redis does, before
// parsing the other arguments.
func (tx *Tx) CheckType(key []byte, t Type) (bool, error) {
	_, ok, err := tx.lookupColl(key, t, false)
	return ok, err
}

// Yield lets a blocking command wait without holding the store: it commits
// what tx has done so far (events and wake-ups included), runs wait with
// the store released, then reopens tx in place on the same logical
// database with a new clock reading. The caller keeps using the same *Tx.
// If the commit fails, tx is still reopened and the error is returned.
func (tx *Tx) Yield(wait func()) (err error) {
	s := tx.s
	db, stop := tx.ldb, tx.stop
	done := new(Tx)
	*done = *tx // done takes the open batch, the lock and the pending events
	err = done.Commit()
	// Deferred so that tx holds the lock again even if wait panics: the
	// connection's recovery then rolls tx back as usual.
	defer func() {
		fresh := s.Begin()
		*tx = *fresh // fresh is dropped: its buffers now belong to tx
		tx.stop = stop
		if uerr := tx.Use(db); uerr != nil && err == nil {
			err = uerr
		}
	}()
	if wait != nil {
		wait()
	}
	return err
}
