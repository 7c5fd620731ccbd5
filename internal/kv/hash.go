package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/storage"
)

// Hashes. A hash's record holds the field count, the earliest field
// expiry (0 for none), the number of fields with an expiry and the latest
// field expiry (0 for none), 8 bytes each (records written before the last
// two existed have only the first two: see hashSummarize). Under its
// version live two namespaces:
//
//	'f' [field]            -> flag byte (1: has expiry) [expireAt u64] value
//	't' [expireAt u64] [field] -> empty: the hash's own field expiry index
//
// A hash with expiring fields also has one entry in its database's field
// expiry index (hash_expiry.go), at its earliest field expiry, which the
// field Source walks. Every command that reads or writes a hash first
// deletes its fields that have expired (one `hexpired` event, and `del`
// when none is left), as Redis's lazy field expiry does, so every reply
// (HLEN included) counts only live fields and the element count stays
// exact. A hash all of whose fields have expired is gone at once, before
// any reaper runs (hash_gone.go): the two last figures of its record say so
// without reading a field.

const (
	hashFieldNS    = 'f'
	hashTimeNS     = 't'
	hashPayloadLen = 8 + 8 + 8 + 8
	// hashPayloadLenV1 is the length of the records written before the
	// expiring-field count and the latest field expiry were kept.
	hashPayloadLenV1 = 8 + 8
)

// hashState is a hash as read in a Tx.
type hashState struct {
	orig     Meta
	found    bool
	version  uint64
	expireAt int64
	count    int64
	elems    int64 // element bytes (elembytes.go), as stored + this command's changes
	minAt    int64 // earliest field expiry as stored (and indexed)
	curMin   int64 // earliest field expiry now, unless minDirty
	minDirty bool
	ttlCount int64 // fields with an expiry
	maxAt    int64 // latest field expiry as stored
	curMax   int64 // latest field expiry now, unless maxDirty
	maxDirty bool
	// v1 says the record predates ttlCount and maxAt: they are unknown
	// until hashSummarize reads them from the time index.
	v1 bool
	// known caches fields read (or written) by this command; with
	// knownAll (a hash this command created) a field not in it is absent.
	known    map[string]fieldRec
	knownAll bool
}

// fieldRec is a stored field.
type fieldRec struct {
	ok  bool
	at  int64 // expiry, 0 for none
	val []byte
}

func encodeFieldRec(at int64, val []byte) []byte {
	if at == 0 {
		return append([]byte{0}, val...)
	}
	b := make([]byte, 0, 9+len(val))
	b = append(b, 1)
	b = binary.BigEndian.AppendUint64(b, uint64(at))
	return append(b, val...)
}

func decodeFieldRec(b []byte) (fieldRec, error) {
	if len(b) >= 1 && b[0] == 0 {
		return fieldRec{ok: true, val: b[1:]}, nil
	}
	if len(b) >= 9 && b[0] == 1 {
		return fieldRec{ok: true, at: int64(binary.BigEndian.Uint64(b[1:9])), val: b[9:]}, nil
	}
	return fieldRec{}, fmt.Errorf("%w: hash field record of %d bytes", ErrCorrupt, len(b))
}

func (tx *Tx) hashFieldKey(h *hashState, field []byte) []byte {
	return tx.elemKey(h.version, []byte{hashFieldNS}, field)
}

func (tx *Tx) hashTimeKey(h *hashState, at int64, field []byte) []byte {
	return tx.elemKey(h.version, []byte{hashTimeNS}, u64(uint64(at)), field)
}

// hashFor reads the hash at key and deletes its expired fields first.
func (tx *Tx) hashFor(key []byte, read bool) (hashState, error) {
	m, ok, err := tx.lookupColl(key, TypeHash, read)
	if err != nil || !ok {
		return hashState{}, err
	}
	h, err := tx.decodeHash(key, m)
	if err != nil {
		return hashState{}, err
	}
	if h.minAt == 0 {
		return h, nil
	}
	if err := tx.hashEnsureIndexed(key, &h); err != nil {
		return hashState{}, err
	}
	if h.minAt >= tx.now {
		return h, nil
	}
	n, _, err := tx.hashExpireDue(key, &h, 0, nil)
	if err != nil {
		return hashState{}, err
	}
	if n > 0 {
		tx.notify(ClassHash, "hexpired", key)
		tx.s.hashStats.expiredFields.Add(int64(n))
	}
	if _, err := tx.hashFinish(key, &h, ""); err != nil {
		return hashState{}, err
	}
	return h, nil
}

// decodeHashMeta decodes a hash record; for a record of the first format
// it leaves v1 set and ttlCount and maxAt zero.
func decodeHashMeta(key []byte, m Meta) (hashState, error) {
	if len(m.Payload) < hashPayloadLenV1 {
		return hashState{}, fmt.Errorf("%w: hash %q record of %d bytes", ErrCorrupt, key, len(m.Payload))
	}
	minAt := int64(binary.BigEndian.Uint64(m.Payload[8:16]))
	h := hashState{
		orig:     m,
		found:    true,
		version:  m.Version,
		expireAt: m.ExpireAt,
		count:    int64(m.Count()),
		elems:    m.ElemBytes,
		minAt:    minAt,
		curMin:   minAt,
		v1:       len(m.Payload) < hashPayloadLen,
	}
	if !h.v1 {
		h.ttlCount = int64(binary.BigEndian.Uint64(m.Payload[16:24]))
		h.maxAt = int64(binary.BigEndian.Uint64(m.Payload[24:32]))
		h.curMax = h.maxAt
	}
	return h, nil
}

// decodeHash decodes a hash record for a command that may change it: the
// figures a first-format record lacks are read from its time index, so
// that hashFinish stores them.
func (tx *Tx) decodeHash(key []byte, m Meta) (hashState, error) {
	h, err := decodeHashMeta(key, m)
	if err != nil || !h.v1 {
		return h, err
	}
	if h.minAt != 0 {
		if h.ttlCount, h.maxAt, err = tx.hashSummarize(tx.pdb, h.version); err != nil {
			return hashState{}, err
		}
		h.curMax = h.maxAt
	}
	h.v1 = false
	return h, nil
}

// hashSummarize counts the fields with an expiry of one hash version in
// physical db pdb and returns the latest expiry, by a walk of its time
// index: the figures a first-format record does not store.
func (tx *Tx) hashSummarize(pdb byte, version uint64) (n, maxAt int64, err error) {
	lo := append(subPrefix(pdb, version), hashTimeNS)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return 0, 0, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if k := it.Key()[len(lo):]; len(k) >= 8 {
			n++
			maxAt = max(maxAt, int64(binary.BigEndian.Uint64(k[:8])))
		}
	}
	return n, maxAt, it.Close()
}

// hashEnsureIndexed writes the hash's entry in the field expiry index when
// it is missing: RENAME, COPY and MOVE carry the record (and its earliest
// field expiry) to a key name the index does not know yet.
func (tx *Tx) hashEnsureIndexed(key []byte, h *hashState) error {
	k := fieldIndexKey(tx.pdb, h.minAt, key)
	_, err := tx.reader().Get(k)
	if errors.Is(err, storage.ErrNotFound) {
		tx.wakeAt(h.minAt)
		return tx.batch().Set(k, nil)
	}
	return err
}

// hashField reads one field.
func (tx *Tx) hashField(h *hashState, field []byte) (fieldRec, error) {
	if h.version == 0 {
		return fieldRec{}, nil
	}
	if r, ok := h.known[string(field)]; ok || h.knownAll {
		return r, nil
	}
	v, err := tx.elems(h.version).Get(tx.hashFieldKey(h, field))
	if errors.Is(err, storage.ErrNotFound) {
		return fieldRec{}, nil
	}
	if err != nil {
		return fieldRec{}, err
	}
	return decodeFieldRec(v)
}

// hashPut writes field with value val and expiry at (0 for none); prev is
// the field as it was.
func (tx *Tx) hashPut(h *hashState, field, val []byte, at int64, prev fieldRec) error {
	if h.version == 0 {
		h.version = tx.NewVersion()
		h.known, h.knownAll = make(map[string]fieldRec), true
	}
	if h.known != nil {
		h.known[string(field)] = fieldRec{ok: true, at: at, val: append([]byte{}, val...)}
	}
	b := tx.indexedBatch()
	if prev.ok && prev.at != 0 {
		h.ttlCount--
	}
	if at != 0 {
		h.ttlCount++
	}
	if prev.ok && prev.at != 0 && prev.at != at {
		if err := b.Delete(tx.hashTimeKey(h, prev.at, field)); err != nil {
			return err
		}
		if prev.at == h.curMin {
			h.minDirty = true
		}
		if prev.at == h.curMax {
			h.maxDirty = true
		}
	}
	if at != 0 && (!prev.ok || prev.at != at) {
		if err := b.Set(tx.hashTimeKey(h, at, field), nil); err != nil {
			return err
		}
		if !h.minDirty && (h.curMin == 0 || at < h.curMin) {
			h.curMin = at
		}
		if !h.maxDirty && at > h.curMax {
			h.curMax = at
		}
	}
	if !prev.ok {
		h.count++
	} else {
		h.elems -= int64(len(field) + len(prev.val))
	}
	h.elems += int64(len(field) + len(val))
	return b.Set(tx.hashFieldKey(h, field), encodeFieldRec(at, val))
}

// hashDel deletes a field that exists; prev is the field as stored (its
// value's length leaves the element bytes).
func (tx *Tx) hashDel(h *hashState, field []byte, prev fieldRec) error {
	b := tx.indexedBatch()
	if prev.at != 0 {
		if err := b.Delete(tx.hashTimeKey(h, prev.at, field)); err != nil {
			return err
		}
		if prev.at == h.curMin {
			h.minDirty = true
		}
		if prev.at == h.curMax {
			h.maxDirty = true
		}
		h.ttlCount--
	}
	if h.known != nil {
		h.known[string(field)] = fieldRec{}
	}
	h.count--
	h.elems -= int64(len(field) + len(prev.val))
	return b.Delete(tx.hashFieldKey(h, field))
}

// hashExpireDue deletes up to limit (0: all) fields that have expired
// (expireAt < now) of the hash at key, earliest first, appending their due
// times to due and recording them in the expiry log. more reports that
// expired fields remain.
func (tx *Tx) hashExpireDue(key []byte, h *hashState, limit int, due *[]int64) (n int, more bool, err error) {
	lo := tx.elemKey(h.version, []byte{hashTimeNS})
	hi := tx.elemKey(h.version, []byte{hashTimeNS}, u64(uint64(tx.now)))
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return 0, false, err
	}
	type entry struct {
		at    int64
		field []byte
	}
	var todo []entry
	for ok := it.First(); ok; ok = it.Next() {
		if limit > 0 && len(todo) == limit {
			more = true
			break
		}
		k := it.Key()[len(lo):]
		if len(k) < 8 {
			it.Close()
			return 0, false, fmt.Errorf("%w: hash time index key", ErrCorrupt)
		}
		todo = append(todo, entry{int64(binary.BigEndian.Uint64(k[:8])), append([]byte{}, k[8:]...)})
	}
	if err := it.Close(); err != nil {
		return 0, false, err
	}
	for _, e := range todo {
		prev, err := tx.hashField(h, e.field)
		if err != nil {
			return 0, false, err
		}
		if !prev.ok {
			return 0, false, fmt.Errorf("%w: hash time index names missing field %q", ErrCorrupt, e.field)
		}
		if err := tx.hashDel(h, e.field, prev); err != nil {
			return 0, false, err
		}
		tx.logExpiry(key, e.field, e.at)
		if due != nil {
			*due = append(*due, e.at+1)
		}
	}
	return len(todo), more, nil
}

// hashFinish emits event (when not empty) and stores the record after the
// fields changed: the earliest field expiry and its index entry follow,
// and a hash left without fields is deleted with `del`. It reports whether
// the hash was deleted.
func (tx *Tx) hashFinish(key []byte, h *hashState, event string) (bool, error) {
	if event != "" {
		tx.notify(ClassHash, event, key)
	}
	if h.count == 0 {
		if !h.found {
			return false, nil
		}
		if h.minAt != 0 {
			if err := tx.batch().Delete(fieldIndexKey(tx.pdb, h.minAt, key)); err != nil {
				return false, err
			}
		}
		orig := h.orig
		*h = hashState{} // a later write starts a new hash
		return true, tx.deleteColl(key, orig)
	}
	if h.minDirty || h.maxDirty {
		lo := tx.elemKey(h.version, []byte{hashTimeNS})
		it, err := tx.elems(h.version).NewIter(lo, storage.PrefixEnd(lo))
		if err != nil {
			return false, err
		}
		if h.minDirty {
			h.curMin = 0
			if it.First() && len(it.Key()) >= len(lo)+8 {
				h.curMin = int64(binary.BigEndian.Uint64(it.Key()[len(lo):]))
			}
		}
		if h.maxDirty {
			h.curMax = 0
			if it.Last() && len(it.Key()) >= len(lo)+8 {
				h.curMax = int64(binary.BigEndian.Uint64(it.Key()[len(lo):]))
			}
		}
		if err := it.Close(); err != nil {
			return false, err
		}
		h.minDirty, h.maxDirty = false, false
	}
	if h.curMin != h.minAt {
		b := tx.batch()
		if h.minAt != 0 {
			if err := b.Delete(fieldIndexKey(tx.pdb, h.minAt, key)); err != nil {
				return false, err
			}
		}
		if h.curMin != 0 {
			if err := b.Set(fieldIndexKey(tx.pdb, h.curMin, key), nil); err != nil {
				return false, err
			}
			tx.wakeAt(h.curMin)
		}
	}
	p := make([]byte, hashPayloadLen)
	binary.BigEndian.PutUint64(p[0:8], uint64(h.count))
	binary.BigEndian.PutUint64(p[8:16], uint64(h.curMin))
	binary.BigEndian.PutUint64(p[16:24], uint64(h.ttlCount))
	binary.BigEndian.PutUint64(p[24:32], uint64(h.curMax))
	nm := Meta{Type: TypeHash, Version: h.version, ExpireAt: h.expireAt, Payload: p}
	var err error
	if nm.ElemBytes, err = tx.savedElemBytes(h.orig, h.found, h.elems, nm); err != nil {
		return false, err
	}
	if err := tx.PutMeta(key, h.orig, h.found, nm); err != nil {
		return false, err
	}
	h.orig, h.found, h.minAt, h.maxAt = nm, true, h.curMin, h.curMax
	return false, nil
}

// wakeAt tells the sweeper, after commit, that something expires at at.
func (tx *Tx) wakeAt(at int64) {
	if at != 0 && (tx.wake == 0 || at < tx.wake) {
		tx.wake = at
	}
}

// HashPair is one field of a hash with its value.
type HashPair struct {
	Field, Value []byte
}

// hashPrefetch reads many fields at once.
func (tx *Tx) hashPrefetch(h *hashState, fields [][]byte) error {
	if !h.found || len(fields) < prefetchMin {
		return nil
	}
	got, err := tx.prefetch(h.version, []byte{hashFieldNS}, fields)
	if err != nil {
		return err
	}
	h.known = make(map[string]fieldRec, len(fields))
	for _, f := range fields {
		var r fieldRec
		if v, ok := got[string(f)]; ok {
			if r, err = decodeFieldRec(v); err != nil {
				return err
			}
		}
		h.known[string(f)] = r
	}
	return nil
}

// everyOther returns pairs[0], pairs[2], ...: the fields of field/value
// pairs.
func everyOther(pairs [][]byte) [][]byte {
	out := make([][]byte, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, pairs[i])
	}
	return out
}

// HSet sets fields (pairs alternate field and value) and returns how many
// were new. A field set this way loses its expiry; the key keeps its own.
// The event is `hset`.
func (tx *Tx) HSet(key []byte, pairs [][]byte) (int64, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return 0, err
	}
	if err := tx.hashPrefetch(&h, everyOther(pairs)); err != nil {
		return 0, err
	}
	var added int64
	for i := 0; i+1 < len(pairs); i += 2 {
		prev, err := tx.hashField(&h, pairs[i])
		if err != nil {
			return 0, err
		}
		if err := tx.hashPut(&h, pairs[i], pairs[i+1], 0, prev); err != nil {
			return 0, err
		}
		if !prev.ok {
			added++
		}
	}
	_, err = tx.hashFinish(key, &h, "hset")
	return added, err
}

// HSetNX sets field only when it does not exist and reports whether it
// did; the event is `hset`.
func (tx *Tx) HSetNX(key, field, val []byte) (bool, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return false, err
	}
	prev, err := tx.hashField(&h, field)
	if err != nil || prev.ok {
		return false, err
	}
	if err := tx.hashPut(&h, field, val, 0, prev); err != nil {
		return false, err
	}
	_, err = tx.hashFinish(key, &h, "hset")
	return err == nil, err
}

// HGet returns the value of field; ok is false when it or the key is
// missing.
func (tx *Tx) HGet(key, field []byte) ([]byte, bool, error) {
	h, err := tx.hashFor(key, true)
	if err != nil {
		return nil, false, err
	}
	r, err := tx.hashField(&h, field)
	return r.val, r.ok, err
}

// HMGet returns the values of fields, nil for a missing one.
func (tx *Tx) HMGet(key []byte, fields [][]byte) ([][]byte, error) {
	h, err := tx.hashFor(key, true)
	if err != nil {
		return nil, err
	}
	if err := tx.hashPrefetch(&h, fields); err != nil {
		return nil, err
	}
	out := make([][]byte, len(fields))
	for i, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return nil, err
		}
		if r.ok {
			out[i] = r.val
			if out[i] == nil {
				out[i] = []byte{}
			}
		}
	}
	return out, nil
}

// HGetAll returns every field of the hash at key with its value, in field
// byte order.
func (tx *Tx) HGetAll(key []byte) ([]HashPair, error) {
	h, err := tx.hashFor(key, true)
	if err != nil || !h.found {
		return nil, err
	}
	return tx.hashPairs(&h)
}

func (tx *Tx) hashPairs(h *hashState) ([]HashPair, error) {
	keys, vals, err := tx.collMembers(h.version, []byte{hashFieldNS})
	if err != nil {
		return nil, err
	}
	out := make([]HashPair, len(keys))
	for i := range keys {
		r, err := decodeFieldRec(vals[i])
		if err != nil {
			return nil, err
		}
		out[i] = HashPair{Field: keys[i], Value: r.val}
	}
	return out, nil
}

// HDel deletes fields and returns how many existed. Events: `hdel`, then
// `del` when the hash is emptied.
func (tx *Tx) HDel(key []byte, fields [][]byte) (int64, error) {
	h, err := tx.hashFor(key, false)
	if err != nil || !h.found {
		return 0, err
	}
	if err := tx.hashPrefetch(&h, fields); err != nil {
		return 0, err
	}
	var n int64
	for _, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return 0, err
		}
		if !r.ok {
			continue
		}
		if err := tx.hashDel(&h, f, r); err != nil {
			return 0, err
		}
		n++
		if h.count == 0 {
			break
		}
	}
	if n == 0 {
		return 0, nil
	}
	_, err = tx.hashFinish(key, &h, "hdel")
	return n, err
}

// HLen returns the number of live fields of the hash at key.
func (tx *Tx) HLen(key []byte) (int64, error) {
	h, err := tx.hashFor(key, true)
	return h.count, err
}

// HExists reports whether field exists.
func (tx *Tx) HExists(key, field []byte) (bool, error) {
	_, ok, err := tx.HGet(key, field)
	return ok, err
}

// HStrLen returns the length of field's value (0 when missing).
func (tx *Tx) HStrLen(key, field []byte) (int64, error) {
	v, _, err := tx.HGet(key, field)
	return int64(len(v)), err
}

// HIncrBy adds delta to the integer in field (0 when missing), keeping the
// field's expiry, and returns the result; the event is `hincrby`.
func (tx *Tx) HIncrBy(key, field []byte, delta int64) (int64, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return 0, err
	}
	r, err := tx.hashField(&h, field)
	if err != nil {
		return 0, err
	}
	var cur int64
	if r.ok {
		v, ok := ParseInt(r.val)
		if !ok {
			return 0, ErrHashNotInteger
		}
		cur = v
	}
	if (delta < 0 && cur < 0 && delta < minInt64-cur) || (delta > 0 && cur > 0 && delta > maxInt64-cur) {
		return 0, ErrOverflow
	}
	cur += delta
	if err := tx.hashPut(&h, field, strconv.AppendInt(nil, cur, 10), r.at, r); err != nil {
		return 0, err
	}
	_, err = tx.hashFinish(key, &h, "hincrby")
	return cur, err
}

// HIncrByFloat adds incr to the number in field (0 when missing) with the
// precision of Redis's long double, keeping the field's expiry, and
// returns the result as stored; the event is `hincrbyfloat`.
func (tx *Tx) HIncrByFloat(key, field, incr []byte) ([]byte, error) {
	inc, err := parseLongDouble(incr)
	if err != nil {
		return nil, err
	}
	if inc.IsInf() {
		return nil, ErrIncrNaNOrInf
	}
	h, err := tx.hashFor(key, false)
	if err != nil {
		return nil, err
	}
	r, err := tx.hashField(&h, field)
	if err != nil {
		return nil, err
	}
	cur := newLongDouble()
	if r.ok {
		if cur, err = parseLongDouble(r.val); err != nil {
			return nil, ErrHashNotFloat
		}
	}
	sum, err := addLongDouble(cur, inc)
	if err != nil {
		return nil, err
	}
	out := formatLongDouble(sum)
	if err := tx.hashPut(&h, field, out, r.at, r); err != nil {
		return nil, err
	}
	_, err = tx.hashFinish(key, &h, "hincrbyfloat")
	return out, err
}

// HRandField returns random fields with their values: n > 0 distinct ones
// (at most the hash's size), n < 0 |n| picks that may repeat. ok is false
// when the key is missing.
func (tx *Tx) HRandField(key []byte, n int64) ([]HashPair, bool, error) {
	h, err := tx.hashFor(key, true)
	if err != nil || !h.found {
		return nil, false, err
	}
	unique := n >= 0
	if !unique {
		n = -n
	}
	if unique && n >= h.count {
		out, err := tx.hashPairs(&h)
		return out, true, err
	}
	keys, vals, err := tx.collRandom(h.version, []byte{hashFieldNS}, h.count, n, unique)
	if err != nil {
		return nil, false, err
	}
	out := make([]HashPair, len(keys))
	for i := range keys {
		r, err := decodeFieldRec(vals[i])
		if err != nil {
			return nil, false, err
		}
		out[i] = HashPair{Field: keys[i], Value: r.val}
	}
	return out, true, nil
}

// HScan returns a page of the fields of the hash at key and the next
// cursor (0 when the walk is complete).
func (tx *Tx) HScan(key []byte, cursor uint64, o CollScanOptions) (uint64, []HashPair, error) {
	h, err := tx.hashFor(key, true)
	if err != nil || !h.found {
		return 0, nil, err
	}
	var out []HashPair
	next, err := tx.collScan(h.version, []byte{hashFieldNS}, cursor, o.Count, func(k, v []byte) error {
		if o.Match != nil && !glob.Match(o.Match, k, false) {
			return nil
		}
		r, err := decodeFieldRec(v)
		if err != nil {
			return err
		}
		out = append(out, HashPair{Field: append([]byte{}, k...), Value: append([]byte{}, r.val...)})
		return nil
	})
	return next, out, err
}

// hashFieldValue reads one field of the hash at key without deleting
// anything (SORT's BY and GET patterns); an expired field is missing.
func (tx *Tx) hashFieldValue(key, field []byte) ([]byte, bool, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok || m.Type != TypeHash {
		return nil, false, err
	}
	h, err := decodeHashMeta(key, m)
	if err != nil {
		return nil, false, err
	}
	r, err := tx.hashField(&h, field)
	if err != nil || !r.ok || (r.at != 0 && r.at < tx.now) {
		return nil, false, err
	}
	return r.val, true, nil
}
