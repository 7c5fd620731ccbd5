package kv

import "encoding/binary"

// INFO keyspace subexpiry (Redis 7.4+): the number of keys of a database
// that have at least one hash field with an expiry, Redis's count of the
// hashes registered in db->hexpires.
//
// A hash has field expiries exactly when its record's earliest field
// expiry (minAt, hash.go) is not zero, so the count is kept like the key
// counters: counters.subexp per physical db, moved by putMeta and
// deleteMeta from the old and new records (subexpiryDelta, hasSubexpiry),
// reset by a flush, and rebuilt at Open by the scan of the metadata that
// counts the keys. RENAME's removal of the source record, which deleteMeta
// sees as a string so that the moved version is kept, is counted by
// removeMeta.
//
// Readers subtract what is stored but logically gone, as for keys and
// expires: hashes whose key has expired (the due part of the key expiry
// index) and hashes none of whose fields with an expiry is still alive
// (maxAt < now: the hash is gone, or what is left has no expiry), all of
// which have their entry in the due part of the field expiry index. Both
// walks are skipped when the database holds no hash with field expiries.

// hasSubexpiry is 1 when m is a hash with at least one field expiry, else 0.
func hasSubexpiry(m Meta) int64 {
	if m.Type != TypeHash || len(m.Payload) < hashPayloadLenV1 || binary.BigEndian.Uint64(m.Payload[8:16]) == 0 {
		return 0
	}
	return 1
}

// subexpiryDelta is the change of the subexpiry count when the record m
// replaces old (found says whether there was one).
func subexpiryDelta(old Meta, found bool, m Meta) int64 {
	d := hasSubexpiry(m)
	if found {
		d -= hasSubexpiry(old)
	}
	return d
}

// subexpiry returns the number of live keys of the current database with
// at least one live field expiry, given the counters c of that database.
func (tx *Tx) subexpiry(c counters) (int64, error) {
	if c.subexp <= 0 {
		return max(c.subexp, 0), nil
	}
	n := c.subexp
	expired, err := tx.dueSubexpiryKeys()
	if err != nil {
		return 0, err
	}
	n -= expired
	lapsed, err := tx.lapsedSubexpiry()
	if err != nil {
		return 0, err
	}
	return n - lapsed, nil
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
			n += hasSubexpiry(m)
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
	it, err := tx.reader().NewIter(expiryPrefix(pdb), expiryKey(nil, pdb, tx.now, nil))
	if err != nil {
		return 0, err
	}
	var entries []fieldEntry
	for ok := it.First(); ok; ok = it.Next() {
		if at, key, ok := decodeExpiryKey(it.Key()); ok {
			entries = append(entries, fieldEntry{at, append([]byte{}, key...)})
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		m, ok, err := tx.getMeta(tx.pdb, e.key)
		if err != nil {
			return 0, err
		}
		if !ok || hasSubexpiry(m) == 0 || m.expiredAt(tx.now) ||
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
