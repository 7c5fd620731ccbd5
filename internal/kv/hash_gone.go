package kv

import (
	"encoding/binary"
	"sync/atomic"
)

// A hash all of whose fields have expired is gone at once, as in Redis
// 7.4+, where such a hash is deleted: no read path sees it, in the
// milliseconds before the field Source reaps it as in the hours a backlog
// may take. The rule costs no read: a hash's record keeps its field count,
// how many of its fields have an expiry and the latest one (hash.go), so
//
//	gone  <=>  count > 0 && ttlCount == count && maxAt < now
//
// (a field is expired when now > its expiry, the rule of keys). Lookup
// deletes such a hash in O(1), like an expired key: its record goes, its
// version to the garbage collector, its entry of the field expiry index
// with it, and it emits `hexpired` then `del`, what Redis emits when the
// last fields of a hash expire. The scans (KEYS, SCAN, RANDOMKEY) skip it,
// and DBSIZE and INFO keyspace subtract the gone hashes found in the due
// part of the field expiry index, where every gone hash has its entry.

// hashStats are the counters of hash field expiry since Open.
type hashStats struct {
	expiredFields atomic.Int64 // fields deleted because they expired
}

// ExpiredFields returns the number of hash fields deleted because they
// expired since Open or the last ResetFieldStats (INFO stats
// expired_subkeys).
func (s *Store) ExpiredFields() int64 { return s.hashStats.expiredFields.Load() }

// ResetFieldStats zeroes ExpiredFields (CONFIG RESETSTAT).
func (s *Store) ResetFieldStats() { s.hashStats.expiredFields.Store(0) }

// hashGone reports whether m, a record of physical db pdb, is a hash every
// field of which has expired at tx's now. A record of the first hash format
// has its figures read from the time index, only when a field has expired.
func (tx *Tx) hashGone(pdb byte, m Meta) (bool, error) {
	if m.Type != TypeHash || len(m.Payload) < hashPayloadLenV1 {
		return false, nil
	}
	count := int64(binary.BigEndian.Uint64(m.Payload[0:8]))
	minAt := int64(binary.BigEndian.Uint64(m.Payload[8:16]))
	if count == 0 || minAt == 0 || minAt >= tx.now {
		return false, nil
	}
	if len(m.Payload) >= hashPayloadLen {
		ttlCount := int64(binary.BigEndian.Uint64(m.Payload[16:24]))
		maxAt := int64(binary.BigEndian.Uint64(m.Payload[24:32]))
		return ttlCount == count && maxAt < tx.now, nil
	}
	n, maxAt, err := tx.hashSummarize(pdb, m.Version)
	return n == count && maxAt < tx.now, err
}

// gone reports whether the record m of physical db pdb is logically absent
// at tx's now: the key expired, or it is a hash whose fields all expired.
func (tx *Tx) gone(pdb byte, m Meta) (bool, error) {
	if m.expiredAt(tx.now) {
		return true, nil
	}
	return tx.hashGone(pdb, m)
}

// lookup is Lookup without recording the access: it reads key's record in
// the current database and deletes it when it has expired (the key, with
// `expired`, or all the fields of a hash, with `hexpired` and `del`).
func (tx *Tx) lookup(key []byte) (Meta, bool, error) {
	m, ok, err := tx.getMeta(tx.pdb, key)
	if err != nil || !ok {
		return Meta{}, false, err
	}
	// A replica set follower hides what has expired but never deletes
	// it: the primary's deletion arrives through replication.
	if m.expiredAt(tx.now) {
		if tx.s.st.Writable() != nil {
			return Meta{}, false, nil
		}
		if err := tx.expireKey(key, m, true); err != nil {
			return Meta{}, false, err
		}
		return Meta{}, false, nil
	}
	gone, err := tx.hashGone(tx.pdb, m)
	if err != nil {
		return Meta{}, false, err
	}
	if gone {
		if tx.s.st.Writable() != nil {
			return Meta{}, false, nil
		}
		if err := tx.expireHash(key, m); err != nil {
			return Meta{}, false, err
		}
		return Meta{}, false, nil
	}
	return m, true, nil
}

// lookupRead is LookupRead without recording the access, for the commands
// Redis runs with LOOKUP_NOTOUCH (EXISTS, TYPE, OBJECT): it counts
// keyspace hits and misses and emits `keymiss`.
func (tx *Tx) lookupRead(key []byte) (Meta, bool, error) {
	m, ok, err := tx.lookup(key)
	if err != nil {
		return m, ok, err
	}
	if ok {
		tx.s.stats.hits.Add(1)
	} else {
		tx.s.stats.misses.Add(1)
		tx.notify(ClassKeyMiss, "keymiss", key)
	}
	return m, ok, nil
}

// expireHash deletes the hash at key of the current database, all of
// whose fields have expired: O(1) whatever its size, like an expired key.
func (tx *Tx) expireHash(key []byte, m Meta) error {
	count := int64(binary.BigEndian.Uint64(m.Payload[0:8]))
	minAt := int64(binary.BigEndian.Uint64(m.Payload[8:16]))
	if err := tx.logHashFields(key, m); err != nil {
		return err
	}
	if err := tx.batch().Delete(fieldIndexKey(tx.pdb, minAt, key)); err != nil {
		return err
	}
	if err := tx.deleteMeta(tx.pdb, key, m, true); err != nil {
		return err
	}
	tx.s.hashStats.expiredFields.Add(count)
	tx.notify(ClassHash, "hexpired", key)
	tx.notify(ClassGeneric, "del", key)
	return nil
}

// goneHashes counts the hashes of the current database that are gone (all
// their fields expired) but still stored and not expired as keys (those
// are counted by due), with how many of them have a key expiry and the sum
// of those expiries. Every such hash has its entry in the due part of the
// field expiry index, usually empty.
func (tx *Tx) goneHashes() (n, expires int64, sum i128, err error) {
	pdb := fieldExpiryDB | tx.pdb
	it, err := tx.reader().NewIter(expiryPrefix(pdb), expiryKey(nil, pdb, tx.now, nil))
	if err != nil {
		return 0, 0, sum, err
	}
	var entries []fieldEntry
	for ok := it.First(); ok; ok = it.Next() {
		if at, key, ok := decodeExpiryKey(it.Key()); ok {
			entries = append(entries, fieldEntry{at, append([]byte{}, key...)})
		}
	}
	if err := it.Close(); err != nil {
		return 0, 0, sum, err
	}
	for _, e := range entries {
		m, ok, err := tx.getMeta(tx.pdb, e.key)
		if err != nil {
			return 0, 0, sum, err
		}
		if !ok || m.Type != TypeHash || m.expiredAt(tx.now) || len(m.Payload) < hashPayloadLenV1 ||
			int64(binary.BigEndian.Uint64(m.Payload[8:16])) != e.at {
			continue // a stale entry, or a key the key index counts
		}
		gone, err := tx.hashGone(tx.pdb, m)
		if err != nil {
			return 0, 0, sum, err
		}
		if gone {
			n++
			if m.ExpireAt != 0 {
				expires++
				sum.add(m.ExpireAt)
			}
		}
	}
	return n, expires, sum, nil
}

// visible reports whether the stored record rec of the current database is
// a live key at tx's now, for the scans; an undecodable record is skipped.
func (tx *Tx) visible(rec []byte) (bool, error) {
	m, err := decodeMeta(rec)
	if err != nil {
		return false, nil
	}
	gone, err := tx.gone(tx.pdb, m)
	return !gone, err
}
