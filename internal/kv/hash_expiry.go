package kv

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// Hash field expiry. Each database has a field expiry index beside its key
// expiry index: PrefixExpiry [fieldExpiryDB|db] [expireAt u64] [key], one
// entry per hash that has expiring fields, at its earliest field expiry
// (Redis's db->hexpires). The entry is written in the same batch as the
// field, by hashFinish. A field with expireAt E is expired when now > E and
// due for the sweeper at E+1 ms, the rule of keys.
//
// The field source (fieldReaper) reaps a hash's expired fields. An
// entry can outlive its hash when the core deletes, overwrites or renames
// the key (DEL, EXPIRE, SET, RENAME drop or move only the record): the
// Source recognises such an entry (no hash at the name, or one whose
// earliest field expiry differs) and deletes it, and the next command on a
// renamed hash writes the entry under its new name (hashEnsureIndexed).

// MaxFieldExpire is the largest absolute field expiry in Unix ms that Redis
// accepts (HFE_MAX_ABS_TIME_MSEC, 2^46-1).
const MaxFieldExpire = int64(1)<<46 - 1

func fieldIndexKey(pdb byte, at int64, key []byte) []byte {
	return expiryKey(nil, fieldExpiryDB|pdb, at, key)
}

// reindexHash writes the field expiry index entry of the record m, which
// RENAME, MOVE or COPY just stored under key in physical db pdb, so its
// fields are reaped under their new name; the entry under the old name is
// stale and the Source drops it. Records of other types are ignored.
func (tx *Tx) reindexHash(pdb byte, key []byte, m Meta) error {
	if m.Type != TypeHash || len(m.Payload) < hashPayloadLenV1 {
		return nil
	}
	minAt := int64(binary.BigEndian.Uint64(m.Payload[8:16]))
	if minAt == 0 {
		return nil
	}
	tx.wakeAt(minAt)
	return tx.batch().Set(fieldIndexKey(pdb, minAt, key), nil)
}

// HExpireCond is the condition of HEXPIRE and its variants: at most one.
// A field without an expiry counts as an infinite one: GT never holds for
// it and LT always does.
type HExpireCond uint8

// The HEXPIRE conditions.
const (
	HExpireAlways HExpireCond = iota
	HExpireNX                 // only fields without an expiry
	HExpireXX                 // only fields with an expiry
	HExpireGT                 // only when the new expiry is later
	HExpireLT                 // only when the new expiry is earlier
)

// Per-field replies of the field expiry commands, as Redis numbers them.
const (
	FieldMissing   = -2 // no such field (or key)
	FieldNoExpiry  = -1 // the field has no expiry (HTTL, HPERSIST)
	FieldCondFalse = 0  // the condition did not hold
	FieldSet       = 1  // the expiry was set (HPERSIST: removed)
	FieldDeleted   = 2  // the time was now or past: the field was deleted
)

// HExpire sets the expiry of fields to at (absolute Unix ms) when cond
// holds and returns one code per field: FieldMissing, FieldCondFalse,
// FieldSet, or FieldDeleted for a time at or before now. Events: `hexpire`
// when expiries were set, `hdel` instead when fields were deleted, and
// `del` when the hash is emptied.
func (tx *Tx) HExpire(key []byte, at int64, cond HExpireCond, fields [][]byte) ([]int64, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(fields))
	var set, deleted int
	for i, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return nil, err
		}
		if !r.ok {
			out[i] = FieldMissing
			continue
		}
		if r.at == 0 {
			if cond == HExpireXX || cond == HExpireGT {
				continue
			}
		} else if cond == HExpireNX || (cond == HExpireGT && r.at >= at) || (cond == HExpireLT && r.at <= at) {
			continue
		}
		if at <= tx.now {
			if err := tx.hashDel(&h, f, r); err != nil {
				return nil, err
			}
			out[i] = FieldDeleted
			deleted++
			continue
		}
		if err := tx.hashPut(&h, f, r.val, at, r); err != nil {
			return nil, err
		}
		out[i] = FieldSet
		set++
	}
	if set+deleted == 0 {
		return out, nil
	}
	event := "hexpire"
	if deleted > 0 {
		event = "hdel"
	}
	_, err = tx.hashFinish(key, &h, event)
	return out, err
}

// HFieldExpireAt returns, per field, its absolute expiry in Unix ms,
// FieldNoExpiry or FieldMissing (HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME).
func (tx *Tx) HFieldExpireAt(key []byte, fields [][]byte) ([]int64, error) {
	h, err := tx.hashFor(key, true)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(fields))
	for i, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return nil, err
		}
		switch {
		case !r.ok:
			out[i] = FieldMissing
		case r.at == 0:
			out[i] = FieldNoExpiry
		default:
			out[i] = r.at
		}
	}
	return out, nil
}

// HPersist removes the expiry of fields and returns per field FieldSet,
// FieldNoExpiry or FieldMissing; the event is `hpersist` when one was
// removed.
func (tx *Tx) HPersist(key []byte, fields [][]byte) ([]int64, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(fields))
	changed := false
	for i, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return nil, err
		}
		switch {
		case !r.ok:
			out[i] = FieldMissing
		case r.at == 0:
			out[i] = FieldNoExpiry
		default:
			if err := tx.hashPut(&h, f, r.val, 0, r); err != nil {
				return nil, err
			}
			out[i] = FieldSet
			changed = true
		}
	}
	if changed {
		_, err = tx.hashFinish(key, &h, "hpersist")
	}
	return out, err
}

// HGetDel returns the values of fields (nil when missing) and deletes
// them. Events: `hdel`, then `del` when the hash is emptied.
func (tx *Tx) HGetDel(key []byte, fields [][]byte) ([][]byte, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(fields))
	deleted := false
	for i, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return nil, err
		}
		if !r.ok {
			continue
		}
		out[i] = append([]byte{}, r.val...)
		if err := tx.hashDel(&h, f, r); err != nil {
			return nil, err
		}
		deleted = true
	}
	if deleted {
		_, err = tx.hashFinish(key, &h, "hdel")
	}
	return out, err
}

// HGetExMode says what HGETEX does to the fields' expiry.
type HGetExMode uint8

// The HGETEX modes.
const (
	HGetExKeep    HGetExMode = iota // leave the expiry alone
	HGetExPersist                   // remove it (PERSIST)
	HGetExAt                        // set it (EX, PX, EXAT, PXAT)
)

// HGetEx returns the values of fields (nil when missing) and changes the
// expiry of the existing ones: removes it, or sets it to at (a time at or
// before now deletes them). Events: `hpersist` or `hexpire` when an expiry
// changed, `hdel` when fields were deleted, `del` when the hash is emptied.
func (tx *Tx) HGetEx(key []byte, mode HGetExMode, at int64, fields [][]byte) ([][]byte, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(fields))
	var updated, deleted int
	for i, f := range fields {
		r, err := tx.hashField(&h, f)
		if err != nil {
			return nil, err
		}
		if !r.ok {
			continue
		}
		out[i] = append([]byte{}, r.val...)
		switch {
		case mode == HGetExPersist && r.at != 0:
			if err := tx.hashPut(&h, f, r.val, 0, r); err != nil {
				return nil, err
			}
			updated++
		case mode == HGetExAt && at <= tx.now:
			if err := tx.hashDel(&h, f, r); err != nil {
				return nil, err
			}
			deleted++
		case mode == HGetExAt:
			if err := tx.hashPut(&h, f, r.val, at, r); err != nil {
				return nil, err
			}
			updated++
		}
	}
	switch {
	case updated > 0 && mode == HGetExPersist:
		_, err = tx.hashFinish(key, &h, "hpersist")
	case updated > 0:
		_, err = tx.hashFinish(key, &h, "hexpire")
	case deleted > 0:
		_, err = tx.hashFinish(key, &h, "hdel")
	}
	return out, err
}

// HSetExCond is the field condition of HSETEX.
type HSetExCond uint8

// The HSETEX conditions.
const (
	HSetExAlways HSetExCond = iota
	HSetExFNX               // only if none of the fields exists
	HSetExFXX               // only if all the fields exist
)

// HSetExMode says what HSETEX does to the fields' expiry.
type HSetExMode uint8

// The HSETEX expiry modes.
const (
	HSetExClear   HSetExMode = iota // the fields lose their expiry, as with HSET
	HSetExKeepTTL                   // KEEPTTL
	HSetExAt                        // EX, PX, EXAT, PXAT
)

// HSetEx sets fields (pairs alternate field and value) when cond holds and
// reports whether it did. With HSetExAt every field gets the expiry at (a
// time at or before now deletes them again). Events: `hset`, then `hexpire`
// (or `hdel` when deleted), and `del` when the hash is emptied.
func (tx *Tx) HSetEx(key []byte, cond HSetExCond, mode HSetExMode, at int64, pairs [][]byte) (bool, error) {
	h, err := tx.hashFor(key, false)
	if err != nil {
		return false, err
	}
	if !h.found && cond == HSetExFXX {
		return false, nil
	}
	if cond != HSetExAlways {
		for i := 0; i+1 < len(pairs); i += 2 {
			r, err := tx.hashField(&h, pairs[i])
			if err != nil {
				return false, err
			}
			if (cond == HSetExFNX && r.ok) || (cond == HSetExFXX && !r.ok) {
				return false, nil
			}
		}
	}
	var deleted, updated int
	for i := 0; i+1 < len(pairs); i += 2 {
		f, v := pairs[i], pairs[i+1]
		r, err := tx.hashField(&h, f)
		if err != nil {
			return false, err
		}
		switch mode {
		case HSetExClear:
			err = tx.hashPut(&h, f, v, 0, r)
		case HSetExKeepTTL:
			err = tx.hashPut(&h, f, v, r.at, r)
		default:
			if at <= tx.now {
				// Set and deleted at once: only an old value leaves a trace.
				if r.ok {
					err = tx.hashDel(&h, f, r)
				}
				deleted++
			} else {
				err = tx.hashPut(&h, f, v, at, r)
				updated++
			}
		}
		if err != nil {
			return false, err
		}
	}
	tx.notify(ClassHash, "hset", key)
	event := ""
	switch {
	case deleted > 0:
		event = "hdel"
	case updated > 0:
		event = "hexpire"
	}
	_, err = tx.hashFinish(key, &h, event)
	return err == nil, err
}

// fieldReaper reaps the entries of the hash-field index: it deletes a
// hash's expired fields from its own time index ('t' sub-keys), emits one
// `hexpired` per hash per batch, deletes a hash left empty with `del`, and
// moves the entry to the hash's next field expiry. Every expired field
// counts in expired_fields.
type fieldReaper struct{ s *Store }

// FieldSources returns one expiry source per logical database for the
// expiring hash fields, for the engine (Kind expiry.KindRedisField).
func (s *Store) FieldSources() []expiry.Source {
	out := make([]expiry.Source, NumDBs)
	for i := range out {
		out[i] = &indexSource{s: s, db: i, name: fmt.Sprintf("redis_fields:db%d", i), kind: expiry.KindRedisField, field: true, reaper: fieldReaper{s}}
	}
	return out
}

// countDue counts the fields due at or before now.
func (f fieldReaper) countDue(ctx context.Context, x *indexSource, now time.Time) (int64, time.Time, time.Time, error) {
	tx := f.s.Begin()
	defer tx.Rollback()
	tx.SetNow(now)
	tx.Use(x.db)
	entries, err := f.dueEntries(tx)
	if err != nil {
		return 0, time.Time{}, time.Time{}, err
	}
	var n int64
	var oldest, newest int64
	for i, e := range entries {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, time.Time{}, time.Time{}, ctx.Err()
		}
		h, ok, err := f.entryHash(tx, e)
		if err != nil {
			return 0, time.Time{}, time.Time{}, err
		}
		if !ok {
			continue
		}
		lo := tx.elemKey(h.version, []byte{hashTimeNS})
		hi := tx.elemKey(h.version, []byte{hashTimeNS}, u64(uint64(tx.now)))
		it, err := tx.reader().NewIter(lo, hi)
		if err != nil {
			return 0, time.Time{}, time.Time{}, err
		}
		for ok := it.First(); ok; ok = it.Next() {
			at := int64(binary.BigEndian.Uint64(it.Key()[len(lo):])) + 1
			if n == 0 || at < oldest {
				oldest = at
			}
			newest = max(newest, at)
			n++
		}
		if err := it.Close(); err != nil {
			return 0, time.Time{}, time.Time{}, err
		}
	}
	if n == 0 {
		return 0, time.Time{}, time.Time{}, nil
	}
	return n, time.UnixMilli(oldest), time.UnixMilli(newest), nil
}

// fieldEntry is one entry of the field expiry index.
type fieldEntry struct {
	at  int64
	key []byte
}

// dueEntries returns every entry of the field expiry index due at tx's
// now.
func (f fieldReaper) dueEntries(tx *Tx) ([]fieldEntry, error) {
	pdb := fieldExpiryDB | tx.pdb
	return tx.fieldEntries(expiryPrefix(pdb), expiryKey(nil, pdb, tx.now, nil))
}

// entryHash returns the hash an index entry stands for; ok is false for a
// stale entry (no hash at the name, or one whose earliest field expiry is
// another), which the caller deletes.
func (f fieldReaper) entryHash(tx *Tx, e fieldEntry) (hashState, bool, error) {
	m, ok, err := tx.getMeta(tx.pdb, e.key)
	if err != nil || !ok || m.Type != TypeHash {
		return hashState{}, false, err
	}
	h, err := decodeHashMeta(e.key, m)
	if err != nil || h.minAt != e.at {
		return hashState{}, false, err
	}
	if h, err = tx.decodeHash(e.key, m); err != nil {
		return hashState{}, false, err
	}
	return h, true, nil
}

// reapEntries deletes up to max due fields of the entries' hashes, earliest
// hash first. A hash that expired as a whole is deleted as the key source
// would; a stale entry is removed (Reaped.Skipped).
func (f fieldReaper) reapEntries(tx *Tx, entries []indexEntry, max int, r *expiry.Reaped) (handled int, err error) {
	n := 0
	for _, ie := range entries {
		if n == max {
			break
		}
		e := fieldEntry{ie.at, bytes.Clone(ie.key)} // the hash state keeps the key past the batch's buffer
		m, ok, err := tx.getMeta(tx.pdb, e.key)
		if err != nil {
			return 0, err
		}
		if ok && m.expiredAt(tx.now) {
			if err := tx.expireKey(e.key, m, false); err != nil {
				return 0, err
			}
			ok = false
		}
		h, valid, err := f.entryHash(tx, e)
		if err != nil {
			return 0, err
		}
		if !ok || !valid {
			if err := tx.batch().Delete(fieldIndexKey(tx.pdb, e.at, e.key)); err != nil {
				return 0, err
			}
			r.Skipped++
			handled++
			continue
		}
		k, left, err := tx.hashExpireDue(e.key, &h, max-n, &r.Due)
		if err != nil {
			return 0, err
		}
		if k > 0 {
			tx.notify(ClassHash, "hexpired", e.key)
		}
		if _, err := tx.hashFinish(e.key, &h, ""); err != nil {
			return 0, err
		}
		n += k
		if !left {
			// Done: a hash with due fields left keeps its entry (moved to
			// its next field expiry, maybe the same key) for the next batch.
			handled++
		}
	}
	f.s.hashStats.expiredFields.Add(int64(n))
	r.Items += n
	r.Keys += n
	return handled, nil
}
