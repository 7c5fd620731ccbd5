package kv

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Stored counters: Open reads the counters of every physical database and
// the version high-water mark from records of their own instead of
// scanning every key, so start-up does not grow with the number of keys.
//
//	PrefixRedisMeta [internalDB] "counters" [pdb] -> countersFormat, then keys,
//	    expires, expSum (high, low), sub.hashes, sub.withTTL, bytes, each a
//	    big-endian 64-bit integer
//	PrefixRedisMeta [internalDB] "version"        -> the last version handed out, u64
//
// Commit rewrites, in the Tx's own batch, the record of every database
// whose counters the Tx changed (or flushed) with their values after the
// Tx, and the version record when the Tx took a new version. Batches reach
// storage in commit order and each one whole or not at all, so after any
// crash the stored records are exactly the counters of the stored keys:
// there is no fallback scan to run. Open scans (as a store without them
// needs, and then writes them all) only when a record is missing or of
// another format. A change to what a counter counts (keyCost, subexpOf)
// must change countersFormat, so that a store written before is rescanned.

// countersFormat tags the stored counter records.
const countersFormat byte = 1

// countersLen is the length of a stored counters record.
const countersLen = 1 + 7*8

func countersKey(pdb byte) []byte { return appendCountersKey(nil, pdb) }

func appendCountersKey(dst []byte, pdb byte) []byte {
	return append(dst, storage.PrefixRedisMeta, internalDB, 'c', 'o', 'u', 'n', 't', 'e', 'r', 's', pdb)
}

func versionKey() []byte {
	return []byte{storage.PrefixRedisMeta, internalDB, 'v', 'e', 'r', 's', 'i', 'o', 'n'}
}

// isStoredCountersKey reports whether k is the key of a stored record of
// this file.
func isStoredCountersKey(k []byte) bool {
	ck := countersKey(0)
	if len(k) == len(ck) && string(k[:len(ck)-1]) == string(ck[:len(ck)-1]) {
		return k[len(k)-1] < NumDBs
	}
	return string(k) == string(versionKey())
}

// encode appends the stored form of c to dst.
func (c counters) encode(dst []byte) []byte {
	dst = append(dst, countersFormat)
	for _, v := range [...]uint64{uint64(c.keys), uint64(c.expires), uint64(c.expSum.hi), c.expSum.lo,
		uint64(c.sub.hashes), uint64(c.sub.withTTL), uint64(c.bytes)} {
		dst = binary.BigEndian.AppendUint64(dst, v)
	}
	return dst
}

// decodeCounters reads a stored counters record; ok is false when v is not
// one of the current format.
func decodeCounters(v []byte) (c counters, ok bool) {
	if len(v) != countersLen || v[0] != countersFormat {
		return counters{}, false
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(v[1+8*i:]) }
	c.keys = int64(u(0))
	c.expires = int64(u(1))
	c.expSum = i128{hi: int64(u(2)), lo: u(3)}
	c.sub = subexpCounts{hashes: int64(u(4)), withTTL: int64(u(5))}
	c.bytes = int64(u(6))
	return c, true
}

// readStoredCounters loads the stored counters and version mark into s. It
// reports false, changing nothing, when a record is missing or of another
// format.
func (s *Store) readStoredCounters() (bool, error) {
	var c [NumDBs]counters
	for pdb := range NumDBs {
		v, err := s.st.Get(countersKey(byte(pdb)))
		if errors.Is(err, storage.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("kv: read the counters of db %d: %w", pdb, err)
		}
		var ok bool
		if c[pdb], ok = decodeCounters(v); !ok {
			return false, nil
		}
	}
	v, err := s.st.Get(versionKey())
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("kv: read the version mark: %w", err)
	}
	if len(v) != 8 {
		return false, nil
	}
	s.c = c
	s.version = max(s.version, binary.BigEndian.Uint64(v))
	return true, nil
}

// writeStoredCounters stores every database's counters and the version
// mark as they are in s, after a scan rebuilt them.
func (s *Store) writeStoredCounters() error {
	b := s.st.NewBatch()
	defer b.Close()
	for pdb := range NumDBs {
		if err := b.Set(countersKey(byte(pdb)), s.c[pdb].encode(nil)); err != nil {
			return fmt.Errorf("kv: store the counters: %w", err)
		}
	}
	if err := b.Set(versionKey(), binary.BigEndian.AppendUint64(nil, s.version)); err != nil {
		return fmt.Errorf("kv: store the version mark: %w", err)
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("kv: store the counters: %w", err)
	}
	return nil
}

// storeCounters writes, into the Tx's batch, the counters after the Tx of
// every database it changed, and the version mark if it took a version.
// Commit calls it before publishing them.
func (tx *Tx) storeCounters() error {
	var b *storage.Batch
	for pdb := range NumDBs {
		if !tx.flushed[pdb] && tx.delta[pdb] == (counters{}) {
			continue
		}
		if b == nil {
			b = tx.writer()
		}
		tx.kbuf = appendCountersKey(tx.kbuf[:0], byte(pdb))
		tx.ebuf = tx.counters(byte(pdb)).encode(tx.ebuf[:0])
		if err := b.Set(tx.kbuf, tx.ebuf); err != nil {
			return err
		}
	}
	if tx.versioned {
		if b == nil {
			b = tx.writer()
		}
		if err := b.Set(versionKey(), binary.BigEndian.AppendUint64(tx.ebuf[:0], tx.s.version)); err != nil {
			return err
		}
	}
	return nil
}
