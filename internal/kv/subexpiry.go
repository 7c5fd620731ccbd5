package kv

import (
	"encoding/binary"

	"github.com/mayfly/mayfly/internal/storage"
)

// INFO keyspace subexpiry (Redis 7.4+): the number of keys of a database
// that have at least one hash field with an expiry, Redis's count of the
// hashes registered in db->hexpires.
//
// A hash has field expiries exactly when its record's earliest field
// expiry (minAt, hash.go) is not zero, so the count is kept like the key
// counters: counters.subexp per physical db, moved by putMeta and
// deleteMeta from the old and new records (subexpiryDelta, hasSubexpiry),
// reset by a flush, stored with them (counters_store.go), and rebuilt by
// the scan of the metadata that counts the keys when a store has none. RENAME's removal of the source record, which deleteMeta
// sees as a string so that the moved version is kept, is counted by
// removeMeta.
//
// Readers subtract what is stored but logically gone, as for keys and
// expires: hashes whose key has expired (the due part of the key expiry
// index) and hashes none of whose fields with an expiry is still alive
// (maxAt < now: the hash is gone, or what is left has no expiry), all of
// which have their entry in the due part of the field expiry index. Both
// walks are skipped when the database holds no hash with field expiries.

// subexpCounts are the subexpiry figures of one physical database, a part
// of its counters: the hashes with at least one field expiry, and how many
// of them also have a key expiry (only those can be expired keys still
// stored, which readers must not count).
type subexpCounts struct {
	hashes  int64
	withTTL int64
}

// subexpOf returns the counts one record contributes.
func subexpOf(m Meta) subexpCounts {
	if m.Type != TypeHash || len(m.Payload) < hashPayloadLenV1 || binary.BigEndian.Uint64(m.Payload[8:16]) == 0 {
		return subexpCounts{}
	}
	c := subexpCounts{hashes: 1}
	if m.ExpireAt != 0 {
		c.withTTL = 1
	}
	return c
}

// add adds d to c.
func (c *subexpCounts) add(d subexpCounts) {
	c.hashes += d.hashes
	c.withTTL += d.withTTL
}

// put counts the record m replacing old (found says whether there was
// one): Tx.putMeta's hook.
func (c *subexpCounts) put(old Meta, found bool, m Meta) {
	if found {
		c.del(old)
	}
	c.add(subexpOf(m))
}

// del uncounts the deleted record m: Tx.deleteMeta's hook.
func (c *subexpCounts) del(m Meta) {
	d := subexpOf(m)
	c.hashes -= d.hashes
	c.withTTL -= d.withTTL
}

// subexpiry returns the number of live keys of the current database with
// at least one live field expiry, given the counters c of that database
// and due, the number of its expired keys still stored.
func (tx *Tx) subexpiry(c counters, due int64) (int64, error) {
	if c.sub.hashes <= 0 {
		return max(c.sub.hashes, 0), nil
	}
	n := c.sub.hashes
	if c.sub.withTTL > 0 && due > 0 {
		expired, err := tx.expiredSubexpiryKeys(c.sub.hashes, due)
		if err != nil {
			return 0, err
		}
		n -= expired
	}
	lapsed, err := tx.lapsedSubexpiry()
	if err != nil {
		return 0, err
	}
	return n - lapsed, nil
}

// expiredSubexpiryKeys counts the hashes with field expiries of the
// current database whose key has expired but is still stored. It reads the
// records of the shorter list: the due part of the key expiry index (due
// entries) or the field expiry index (an entry per such hash, and a few
// stale ones).
func (tx *Tx) expiredSubexpiryKeys(hashes, due int64) (int64, error) {
	if due <= hashes {
		return tx.dueSubexpiryKeys()
	}
	pdb := fieldExpiryDB | tx.pdb
	lo := expiryPrefix(pdb)
	entries, err := tx.fieldEntries(lo, storage.PrefixEnd(lo))
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		m, ok, err := tx.getMeta(tx.pdb, e.key)
		if err != nil {
			return 0, err
		}
		if ok && m.expiredAt(tx.now) && subexpOf(m).hashes == 1 &&
			int64(binary.BigEndian.Uint64(m.Payload[8:16])) == e.at {
			n++
		}
	}
	return n, nil
}

// dueSubexpiryKeys counts the hashes with field expiries among the keys of
// the current database that have expired but are still stored.
func (tx *Tx) dueSubexpiryKeys() (int64, error) {
	lo := tx.s.dueFrom[tx.pdb]
	if lo == nil {
		lo = expiryPrefix(tx.pdb)
	}
	hi := expiryKey(nil, tx.pdb, tx.now, nil)
	if string(lo) >= string(hi) {
		return 0, nil
	}
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return 0, err
	}
	var keys [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		if _, key, ok := decodeExpiryKey(it.Key()); ok {
			keys = append(keys, append([]byte(nil), key...))
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	var n int64
	for _, k := range keys {
		m, ok, err := tx.getMeta(tx.pdb, k)
		if err != nil {
			return 0, err
		}
		if ok && m.expiredAt(tx.now) {
			n += subexpOf(m).hashes
		}
	}
	return n, nil
}

// lapsedSubexpiry counts the hashes of the current database, not expired
// as keys, that have field expiries but none still alive: their latest
// field expiry is past. Each has its entry in the due part of the field
// expiry index.
func (tx *Tx) lapsedSubexpiry() (int64, error) {
	pdb := fieldExpiryDB | tx.pdb
	entries, err := tx.fieldEntries(expiryPrefix(pdb), expiryKey(nil, pdb, tx.now, nil))
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		m, ok, err := tx.getMeta(tx.pdb, e.key)
		if err != nil {
			return 0, err
		}
		if !ok || subexpOf(m).hashes == 0 || m.expiredAt(tx.now) ||
			int64(binary.BigEndian.Uint64(m.Payload[8:16])) != e.at {
			continue // a stale entry, or a key counted by dueSubexpiryKeys
		}
		maxAt, err := tx.hashMaxFieldExpiry(m)
		if err != nil {
			return 0, err
		}
		if maxAt < tx.now {
			n++
		}
	}
	return n, nil
}

// hashMaxFieldExpiry returns the latest field expiry of the hash record m
// of the current database: from the record, or from the time index for a
// record of the first hash format.
func (tx *Tx) hashMaxFieldExpiry(m Meta) (int64, error) {
	if len(m.Payload) >= hashPayloadLen {
		return int64(binary.BigEndian.Uint64(m.Payload[24:32])), nil
	}
	_, maxAt, err := tx.hashSummarize(tx.pdb, m.Version)
	return maxAt, err
}

// fieldEntries reads the field expiry index entries in [lo, hi).
func (tx *Tx) fieldEntries(lo, hi []byte) ([]fieldEntry, error) {
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	var entries []fieldEntry
	for ok := it.First(); ok; ok = it.Next() {
		if at, key, ok := decodeExpiryKey(it.Key()); ok {
			entries = append(entries, fieldEntry{at, append([]byte{}, key...)})
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	return entries, nil
}
