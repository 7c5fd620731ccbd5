package kv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mayfly/mayfly/internal/storage"
)

// The consistency checker. Check walks one snapshot of the keyspace and
// proves the invariants the rest of the package keeps in one batch per
// command:
//
//   - every key with an expiry has its entry in the expiry index, and every
//     entry names a key whose record has that exact expiry;
//   - the per-database counters (keys, keys with an expiry, counted
//     memory, sum of their expiry times), in memory and as stored for the
//     next Open (counters_store.go), equal a recount of the records, the
//     stored version mark is at least every version in use,
//     and the cached count of due expiry entries (duecount.go) a recount
//     of the index;
//   - a collection's element count equals its stored elements: a list's
//     elements are exactly the indexes [head, tail), a set's and a hash's
//     count is the number of members or fields, a sorted set's is the
//     number of members, and no empty collection is stored (but a
//     stream, which stays when emptied);
//   - a stream's entry and group counts equal its stored entries and
//     groups, and each group's and consumer's pending count its pending
//     entries, every one owned by an existing consumer (stream_check.go);
//   - a sorted set's score index ('s') and its members ('m') agree one to
//     one, score for score;
//   - a hash's field time index ('t') and its fields agree one to one,
//     time for time; the record's earliest field expiry (and, in the
//     current record format, the count of expiring fields and the latest
//     expiry) match them, and a hash with expiring fields has its entry in
//     the database's field expiry index at its earliest field expiry;
//   - every version owning sub-keys belongs to exactly one live key of the
//     same database or has a garbage record, and no garbage record names a
//     version a live key uses;
//   - every record decodes and lies under a database byte the layout
//     allows, and the database map is a permutation.
//
// Entries of the field expiry index that no longer match their hash are
// not problems: DEL, SET and RENAME leave them on purpose and the field
// Source drops them (hash_expiry.go).

// ProblemKind classifies what Check finds.
type ProblemKind int

// The kinds of problem Check reports.
const (
	// ProblemCorrupt is a record or key that does not decode, or lies
	// under a database byte the layout does not use.
	ProblemCorrupt ProblemKind = iota + 1
	// ProblemExpiryIndex is a key's expiry and the expiry index
	// disagreeing.
	ProblemExpiryIndex
	// ProblemCounters is a per-database counter that differs from a
	// recount.
	ProblemCounters
	// ProblemCount is a collection whose element count (or list bounds)
	// differs from its stored elements.
	ProblemCount
	// ProblemScoreIndex is a sorted set whose score index and members
	// disagree.
	ProblemScoreIndex
	// ProblemFieldExpiry is a hash whose field time index, field expiries,
	// expiry figures or database field expiry entry disagree.
	ProblemFieldExpiry
	// ProblemVersion is a collection version used by two keys.
	ProblemVersion
	// ProblemGarbage is a garbage record naming a version a live key uses.
	ProblemGarbage
	// ProblemOrphan is a version with sub-keys that no live key of its
	// database uses and no garbage record names.
	ProblemOrphan
	// ProblemElemBytes is a collection whose record's element bytes
	// differ from a recount of its stored elements.
	ProblemElemBytes
)

var problemNames = map[ProblemKind]string{
	ProblemCorrupt:     "corrupt",
	ProblemExpiryIndex: "expiry index",
	ProblemCounters:    "counters",
	ProblemCount:       "element count",
	ProblemScoreIndex:  "score index",
	ProblemFieldExpiry: "field expiry",
	ProblemVersion:     "version",
	ProblemGarbage:     "garbage",
	ProblemOrphan:      "orphan elements",
	ProblemElemBytes:   "element bytes",
}

// String names the kind.
func (k ProblemKind) String() string {
	if n, ok := problemNames[k]; ok {
		return n
	}
	return fmt.Sprintf("ProblemKind(%d)", int(k))
}

// Problem is one violation Check found.
type Problem struct {
	Kind ProblemKind
	// DB is the logical database (as SELECT numbers it), -1 when the
	// problem belongs to none.
	DB int
	// Key is the Redis key concerned, nil when there is none.
	Key []byte
	// Detail says what is wrong.
	Detail string
}

// String formats the problem on one line, as `mayfly check` prints it.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString("kv: check")
	if p.DB >= 0 {
		fmt.Fprintf(&b, " db %d", p.DB)
	}
	if p.Key != nil {
		fmt.Fprintf(&b, " key %q", p.Key)
	}
	fmt.Fprintf(&b, ": %s: %s", p.Kind, p.Detail)
	return b.String()
}

// maxProblems bounds the problems a CheckError lists.
const maxProblems = 100

// CheckError is the error Check returns when it finds problems: the first
// maxProblems of them and the number of the others.
type CheckError struct {
	Problems []Problem
	More     int
}

// Error lists the problems, one per line.
func (e *CheckError) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		lines = append(lines, p.String())
	}
	if e.More > 0 {
		lines = append(lines, fmt.Sprintf("kv: check: %d more problems", e.More))
	}
	return strings.Join(lines, "\n")
}

// Has reports whether a problem of kind k was found.
func (e *CheckError) Has(k ProblemKind) bool {
	for _, p := range e.Problems {
		if p.Kind == k {
			return true
		}
	}
	return false
}

// Check verifies the consistency of the Redis keyspace on one snapshot
// (see the list at the top of check.go). It returns nil, a *CheckError
// listing what it found, or the error that stopped it. It holds the
// store's lock only while taking the snapshot, so it can run beside
// clients.
func (s *Store) Check(ctx context.Context) error {
	s.mu.Lock()
	s.waitApplied() // the snapshot must hold what c and dbmap count
	snap := s.st.NewSnapshot()
	c := s.c
	dbmap := s.dbmap
	ck0 := &checker{dueCounts: s.dueCounts}
	s.mu.Unlock()
	defer snap.Close()
	ck := ck0
	ck.snap, ck.ctx, ck.versions = snap, ctx, map[uint64]versionOwner{}
	for l, p := range dbmap {
		ck.logical[p] = l
	}
	if err := ck.run(c, dbmap); err != nil {
		return fmt.Errorf("kv: check: %w", err)
	}
	if len(ck.problems) == 0 {
		return nil
	}
	return &CheckError{Problems: ck.problems, More: ck.more}
}

// versionOwner is the live key a collection version belongs to.
type versionOwner struct {
	pdb byte
	key string
}

// checker is the state of one Check.
type checker struct {
	snap *storage.Snapshot
	// dueCounts is the store's cache of due counts when the snapshot was
	// taken.
	dueCounts [NumDBs]dueCount
	ctx       context.Context
	logical   [NumDBs]int
	versions  map[uint64]versionOwner
	// highest is the highest version a key or a garbage record uses.
	highest  uint64
	problems []Problem
	more     int
	steps    int
}

// report records a problem of physical database pdb (-1 for none).
func (ck *checker) report(kind ProblemKind, pdb int, key []byte, format string, args ...any) {
	if len(ck.problems) == maxProblems {
		ck.more++
		return
	}
	db := -1
	if pdb >= 0 && pdb < NumDBs {
		db = ck.logical[pdb]
	}
	if key != nil {
		key = bytes.Clone(key)
	}
	ck.problems = append(ck.problems, Problem{Kind: kind, DB: db, Key: key, Detail: fmt.Sprintf(format, args...)})
}

// step checks the context every few thousand records.
func (ck *checker) step() error {
	ck.steps++
	if ck.steps%4096 == 0 {
		return ck.ctx.Err()
	}
	return nil
}

// has reports whether key is stored in the snapshot.
func (ck *checker) has(key []byte) (bool, error) {
	_, err := ck.snap.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (ck *checker) run(c [NumDBs]counters, dbmap [NumDBs]byte) error {
	if err := ck.checkLayout(dbmap); err != nil {
		return err
	}
	for pdb := range NumDBs {
		if err := ck.checkKeys(byte(pdb), c[pdb]); err != nil {
			return err
		}
		if err := ck.checkExpiryIndex(byte(pdb)); err != nil {
			return err
		}
		if err := ck.checkDueCount(byte(pdb)); err != nil {
			return err
		}
		if err := ck.checkFieldIndex(byte(pdb)); err != nil {
			return err
		}
	}
	for pdb := range NumDBs {
		if err := ck.checkVersions(byte(pdb)); err != nil {
			return err
		}
	}
	if err := ck.checkGarbage(); err != nil {
		return err
	}
	return ck.checkStoredVersion(ck.highest)
}

// checkLayout verifies the database bytes in use under each kv prefix and
// the database map record.
func (ck *checker) checkLayout(dbmap [NumDBs]byte) error {
	valid := map[byte]func(db byte) bool{
		storage.PrefixRedisMeta: func(db byte) bool { return db < NumDBs || db == internalDB },
		storage.PrefixRedisSub:  func(db byte) bool { return db < NumDBs },
		storage.PrefixExpiry:    func(db byte) bool { return db&^fieldExpiryDB < NumDBs },
		storage.PrefixGarbage:   func(db byte) bool { return db < NumDBs },
	}
	for _, prefix := range []byte{storage.PrefixRedisMeta, storage.PrefixRedisSub, storage.PrefixExpiry, storage.PrefixGarbage} {
		lo := []byte{prefix}
		it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
		if err != nil {
			return err
		}
		for ok := it.First(); ok; {
			k := it.Key()
			if len(k) < 2 {
				ck.report(ProblemCorrupt, -1, nil, "key %x of keyspace %s has no database byte", k, storage.PrefixNames[prefix])
				ok = it.Next()
				continue
			}
			db := k[1]
			if !valid[prefix](db) {
				ck.report(ProblemCorrupt, -1, nil, "keyspace %s has records under database byte %#x, which the layout does not use", storage.PrefixNames[prefix], db)
			}
			if db == 0xff {
				break
			}
			ok = it.SeekGE([]byte{prefix, db + 1})
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	lo := metaPrefix(internalDB)
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if bytes.Equal(it.Key(), functionsKey()) || isStoredCountersKey(it.Key()) {
			continue
		}
		if !bytes.Equal(it.Key(), dbmapKey()) {
			ck.report(ProblemCorrupt, -1, nil, "unknown internal record %q", it.Key()[2:])
			continue
		}
		v := it.Value()
		var seen [NumDBs]bool
		perm := len(v) == NumDBs
		for _, p := range v {
			if p >= NumDBs || seen[p] {
				perm = false
				break
			}
			seen[p] = true
		}
		switch {
		case !perm:
			ck.report(ProblemCorrupt, -1, nil, "the database map %x is not a permutation of the %d databases", v, NumDBs)
		case !bytes.Equal(v, dbmap[:]):
			ck.report(ProblemCorrupt, -1, nil, "the stored database map %x differs from the one in use %x", v, dbmap[:])
		}
	}
	return it.Error()
}

// checkKeys walks the records of pdb: each decodes, its expiry is
// indexed, its collection is consistent, and the counters match.
func (ck *checker) checkKeys(pdb byte, c counters) error {
	lo := metaPrefix(pdb)
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	var keys, expires, bytes int64
	var sub subexpCounts
	var sum i128
	for ok := it.First(); ok; ok = it.Next() {
		if err := ck.step(); err != nil {
			return err
		}
		key := it.Key()[2:]
		keys++
		m, err := decodeMeta(it.Value())
		if err != nil {
			ck.report(ProblemCorrupt, int(pdb), key, "%v", err)
			continue
		}
		sub.add(subexpOf(m))
		bytes += keyCost(len(key), m)
		if m.ExpireAt != 0 {
			expires++
			sum.add(m.ExpireAt)
			found, err := ck.has(expiryKey(nil, pdb, m.ExpireAt, key))
			if err != nil {
				return err
			}
			if !found {
				ck.report(ProblemExpiryIndex, int(pdb), key, "expires at %d but the expiry index has no entry for it", m.ExpireAt)
			}
		}
		if m.Type == TypeString {
			continue
		}
		if prev, dup := ck.versions[m.Version]; dup {
			ck.report(ProblemVersion, int(pdb), key, "version %d is also used by key %q of db %d", m.Version, prev.key, ck.logical[prev.pdb])
		} else {
			ck.versions[m.Version] = versionOwner{pdb: pdb, key: string(key)}
		}
		ck.highest = max(ck.highest, m.Version)
		if err := ck.checkCollection(pdb, key, m); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if c.keys != keys || c.expires != expires || c.expSum != sum {
		ck.report(ProblemCounters, int(pdb), nil, "counters say %d keys, %d with an expiry (expiry sum %s); the records hold %d, %d (%s)",
			c.keys, c.expires, c.expSum.big(), keys, expires, sum.big())
	}
	if c.sub != sub {
		ck.report(ProblemCounters, int(pdb), nil, "counters say %d hashes with a field expiry (%d with a key expiry); the records hold %d (%d)",
			c.sub.hashes, c.sub.withTTL, sub.hashes, sub.withTTL)
	}
	if c.bytes != bytes {
		ck.report(ProblemCounters, int(pdb), nil, "counters say the keys count %d bytes of memory; the records count %d", c.bytes, bytes)
	}
	return ck.checkStoredCounters(pdb, counters{keys: keys, expires: expires, expSum: sum, sub: sub, bytes: bytes})
}

// checkStoredCounters verifies that the stored counters of pdb, which the
// next Open reads instead of scanning, equal the recount.
func (ck *checker) checkStoredCounters(pdb byte, recount counters) error {
	v, err := ck.snap.Get(countersKey(pdb))
	if errors.Is(err, storage.ErrNotFound) {
		ck.report(ProblemCounters, int(pdb), nil, "no stored counters")
		return nil
	}
	if err != nil {
		return err
	}
	stored, ok := decodeCounters(v)
	switch {
	case !ok:
		ck.report(ProblemCorrupt, int(pdb), nil, "the stored counters %x do not decode", v)
	case stored != recount:
		ck.report(ProblemCounters, int(pdb), nil, "stored counters say %d keys, %d with an expiry (expiry sum %s), %d hashes with a field expiry (%d with a key expiry), %d bytes; the records hold %d, %d (%s), %d (%d), %d",
			stored.keys, stored.expires, stored.expSum.big(), stored.sub.hashes, stored.sub.withTTL, stored.bytes,
			recount.keys, recount.expires, recount.expSum.big(), recount.sub.hashes, recount.sub.withTTL, recount.bytes)
	}
	return nil
}

// checkStoredVersion verifies that the stored version mark is at least
// every version a key or garbage record uses, so that the next Open hands
// none out twice.
func (ck *checker) checkStoredVersion(highest uint64) error {
	v, err := ck.snap.Get(versionKey())
	if errors.Is(err, storage.ErrNotFound) {
		ck.report(ProblemVersion, -1, nil, "no stored version mark")
		return nil
	}
	if err != nil {
		return err
	}
	if len(v) != 8 {
		ck.report(ProblemCorrupt, -1, nil, "the stored version mark %x does not decode", v)
		return nil
	}
	if mark := binary.BigEndian.Uint64(v); mark < highest {
		ck.report(ProblemVersion, -1, nil, "the stored version mark %d is below version %d, which is in use", mark, highest)
	}
	return nil
}

// checkExpiryIndex verifies that every entry of pdb's expiry index names
// a key whose record has that expiry.
func (ck *checker) checkExpiryIndex(pdb byte) error {
	lo := expiryPrefix(pdb)
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ck.step(); err != nil {
			return err
		}
		at, key, ok := decodeExpiryKey(it.Key())
		if !ok {
			ck.report(ProblemCorrupt, int(pdb), nil, "expiry index key %x", it.Key())
			continue
		}
		v, err := ck.snap.Get(metaKey(nil, pdb, key))
		if errors.Is(err, storage.ErrNotFound) {
			ck.report(ProblemExpiryIndex, int(pdb), key, "the expiry index has an entry at %d for a key that does not exist", at)
			continue
		}
		if err != nil {
			return err
		}
		m, err := decodeMeta(v)
		if err != nil {
			continue // reported by checkKeys
		}
		if m.ExpireAt != at {
			ck.report(ProblemExpiryIndex, int(pdb), key, "the expiry index has an entry at %d but the key expires at %d (0: never)", at, m.ExpireAt)
		}
	}
	return it.Error()
}

// checkFieldIndex verifies that the keys of pdb's field expiry index
// decode; entries that no longer match their hash are allowed (see the
// top of check.go), and checkHash proves that every hash has its entry.
func (ck *checker) checkFieldIndex(pdb byte) error {
	lo := expiryPrefix(fieldExpiryDB | pdb)
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ck.step(); err != nil {
			return err
		}
		if _, _, ok := decodeExpiryKey(it.Key()); !ok {
			ck.report(ProblemCorrupt, int(pdb), nil, "field expiry index key %x", it.Key())
		}
	}
	return it.Error()
}

// checkCollection verifies the elements of the collection record m of key.
func (ck *checker) checkCollection(pdb byte, key []byte, m Meta) error {
	if len(m.Payload) < 8 {
		ck.report(ProblemCorrupt, int(pdb), key, "%s record of %d bytes", m.Type, len(m.Payload))
		return nil
	}
	if m.Type == TypeStream {
		return ck.checkStream(pdb, key, m) // an empty stream is kept
	}
	if m.Count() == 0 {
		ck.report(ProblemCount, int(pdb), key, "an empty %s is stored", m.Type)
	}
	if m.ElemBytes >= 0 {
		got, err := recountElemBytes(ck.snap, pdb, m)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return err
		}
		if err == nil && got != m.ElemBytes {
			ck.report(ProblemElemBytes, int(pdb), key, "the record says its elements hold %d bytes; they hold %d", m.ElemBytes, got)
		}
	}
	switch m.Type {
	case TypeList:
		return ck.checkList(pdb, key, m)
	case TypeSet:
		return ck.checkSet(pdb, key, m)
	case TypeHash:
		return ck.checkHash(pdb, key, m)
	case TypeZSet:
		return ck.checkZSet(pdb, key, m)
	}
	return nil
}

// elements iterates the sub-keys of version v of pdb, calling f with each
// suffix (after the version) and value.
func (ck *checker) elements(pdb byte, v uint64, f func(suffix, val []byte) error) error {
	lo := subPrefix(pdb, v)
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ck.step(); err != nil {
			return err
		}
		if err := f(it.Key()[len(lo):], it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

func (ck *checker) checkList(pdb byte, key []byte, m Meta) error {
	if len(m.Payload) < listPayloadLen {
		ck.report(ProblemCorrupt, int(pdb), key, "list record of %d bytes", len(m.Payload))
		return nil
	}
	head := binary.BigEndian.Uint64(m.Payload[8:16])
	tail := binary.BigEndian.Uint64(m.Payload[16:24])
	if tail < head || tail-head != m.Count() {
		ck.report(ProblemCount, int(pdb), key, "the list's bounds [%d, %d) do not hold its count %d", head, tail, m.Count())
	}
	var n uint64
	gap := false
	err := ck.elements(pdb, m.Version, func(suffix, _ []byte) error {
		if len(suffix) != 8 {
			ck.report(ProblemCorrupt, int(pdb), key, "list element key %x", suffix)
			return nil
		}
		if idx := binary.BigEndian.Uint64(suffix); idx != head+n && !gap {
			gap = true
			ck.report(ProblemCount, int(pdb), key, "element %d of the list is stored at index %d, not %d: its elements are not exactly [head, tail) = [%d, %d)", n, idx, head+n, head, tail)
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n != m.Count() {
		ck.report(ProblemCount, int(pdb), key, "the list's count is %d, it has %d elements", m.Count(), n)
	}
	return nil
}

func (ck *checker) checkSet(pdb byte, key []byte, m Meta) error {
	var n uint64
	err := ck.elements(pdb, m.Version, func([]byte, []byte) error {
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n != m.Count() {
		ck.report(ProblemCount, int(pdb), key, "the set's count is %d, it has %d members", m.Count(), n)
	}
	return nil
}

func (ck *checker) checkHash(pdb byte, key []byte, m Meta) error {
	h, err := decodeHashMeta(key, m)
	if err != nil {
		ck.report(ProblemCorrupt, int(pdb), key, "%v", err)
		return nil
	}
	var fields, timed int64
	var minAt, maxAt int64
	ver := subPrefix(pdb, m.Version)
	err = ck.elements(pdb, m.Version, func(suffix, val []byte) error {
		switch {
		case len(suffix) >= 1 && suffix[0] == hashFieldNS:
			field := suffix[1:]
			fields++
			r, err := decodeFieldRec(val)
			if err != nil {
				ck.report(ProblemCorrupt, int(pdb), key, "field %q: %v", field, err)
				return nil
			}
			if r.at == 0 {
				return nil
			}
			tk := append(append(append(append([]byte(nil), ver...), hashTimeNS), u64(uint64(r.at))...), field...)
			found, err := ck.has(tk)
			if err != nil {
				return err
			}
			if !found {
				ck.report(ProblemFieldExpiry, int(pdb), key, "field %q expires at %d but the hash's time index has no entry for it", field, r.at)
			}
		case len(suffix) >= 9 && suffix[0] == hashTimeNS:
			at := int64(binary.BigEndian.Uint64(suffix[1:9]))
			field := suffix[9:]
			timed++
			if minAt == 0 || at < minAt {
				minAt = at
			}
			maxAt = max(maxAt, at)
			fk := append(append(append([]byte(nil), ver...), hashFieldNS), field...)
			v, err := ck.snap.Get(fk)
			if errors.Is(err, storage.ErrNotFound) {
				ck.report(ProblemFieldExpiry, int(pdb), key, "the hash's time index has an entry at %d for field %q, which does not exist", at, field)
				return nil
			}
			if err != nil {
				return err
			}
			if r, err := decodeFieldRec(v); err == nil && r.at != at {
				ck.report(ProblemFieldExpiry, int(pdb), key, "the hash's time index has an entry at %d for field %q, which expires at %d (0: never)", at, field, r.at)
			}
		default:
			ck.report(ProblemCorrupt, int(pdb), key, "hash element key %x", suffix)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if fields != h.count {
		ck.report(ProblemCount, int(pdb), key, "the hash's count is %d, it has %d fields", h.count, fields)
	}
	if h.minAt != minAt {
		ck.report(ProblemFieldExpiry, int(pdb), key, "the record's earliest field expiry is %d, its fields' is %d (0: none)", h.minAt, minAt)
	}
	if !h.v1 && (h.ttlCount != timed || h.maxAt != maxAt) {
		ck.report(ProblemFieldExpiry, int(pdb), key, "the record counts %d expiring fields up to %d, the time index holds %d up to %d", h.ttlCount, h.maxAt, timed, maxAt)
	}
	if h.minAt != 0 {
		found, err := ck.has(fieldIndexKey(pdb, h.minAt, key))
		if err != nil {
			return err
		}
		if !found {
			ck.report(ProblemFieldExpiry, int(pdb), key, "the database's field expiry index has no entry at the hash's earliest field expiry %d", h.minAt)
		}
	}
	return nil
}

func (ck *checker) checkZSet(pdb byte, key []byte, m Meta) error {
	var members uint64
	ver := subPrefix(pdb, m.Version)
	err := ck.elements(pdb, m.Version, func(suffix, val []byte) error {
		switch {
		case len(suffix) >= 1 && suffix[0] == zsetMemberNS:
			member := suffix[1:]
			members++
			if len(val) != 8 {
				ck.report(ProblemCorrupt, int(pdb), key, "member %q has a score of %d bytes", member, len(val))
				return nil
			}
			score := math.Float64frombits(binary.BigEndian.Uint64(val))
			sk := append(append(append(append([]byte(nil), ver...), zsetScoreNS), u64(encodeScore(score))...), member...)
			found, err := ck.has(sk)
			if err != nil {
				return err
			}
			if !found {
				ck.report(ProblemScoreIndex, int(pdb), key, "member %q has score %v but the score index has no entry for it", member, score)
			}
		case len(suffix) >= 9 && suffix[0] == zsetScoreNS:
			score := decodeScore(binary.BigEndian.Uint64(suffix[1:9]))
			member := suffix[9:]
			mk := append(append(append([]byte(nil), ver...), zsetMemberNS), member...)
			v, err := ck.snap.Get(mk)
			if errors.Is(err, storage.ErrNotFound) {
				ck.report(ProblemScoreIndex, int(pdb), key, "the score index has an entry at %v for member %q, which does not exist", score, member)
				return nil
			}
			if err != nil {
				return err
			}
			if len(v) == 8 {
				if have := math.Float64frombits(binary.BigEndian.Uint64(v)); encodeScore(have) != encodeScore(score) {
					ck.report(ProblemScoreIndex, int(pdb), key, "the score index has an entry at %v for member %q, whose score is %v", score, member, have)
				}
			}
		default:
			ck.report(ProblemCorrupt, int(pdb), key, "sorted set element key %x", suffix)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if members != m.Count() {
		ck.report(ProblemCount, int(pdb), key, "the sorted set's count is %d, it has %d members", m.Count(), members)
	}
	return nil
}

// checkVersions verifies that every version with sub-keys in pdb belongs
// to a live key of pdb or has a garbage record there.
func (ck *checker) checkVersions(pdb byte) error {
	lo := []byte{storage.PrefixRedisSub, pdb}
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; {
		if err := ck.step(); err != nil {
			return err
		}
		k := it.Key()
		if len(k) < 10 {
			ck.report(ProblemCorrupt, int(pdb), nil, "element key %x has no version", k)
			ok = it.Next()
			continue
		}
		v := binary.BigEndian.Uint64(k[2:10])
		if owner, live := ck.versions[v]; !live || owner.pdb != pdb {
			found, err := ck.has(garbageKey(pdb, v))
			if err != nil {
				return err
			}
			switch {
			case found:
			case live:
				ck.report(ProblemOrphan, int(pdb), nil, "elements of version %d, which key %q of db %d uses, are stored here, and no garbage record names them", v, owner.key, ck.logical[owner.pdb])
			default:
				ck.report(ProblemOrphan, int(pdb), nil, "elements of version %d, which no key uses and no garbage record names", v)
			}
		}
		if v == math.MaxUint64 {
			break
		}
		ok = it.SeekGE(subPrefix(pdb, v+1))
	}
	return it.Error()
}

// checkGarbage verifies that no garbage record names a version a live key
// uses.
func (ck *checker) checkGarbage() error {
	lo := []byte{storage.PrefixGarbage}
	it, err := ck.snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ck.step(); err != nil {
			return err
		}
		pdb, v, ok := decodeGarbageKey(it.Key())
		if !ok {
			ck.report(ProblemCorrupt, -1, nil, "garbage key %x", it.Key())
			continue
		}
		if owner, live := ck.versions[v]; live {
			ck.report(ProblemGarbage, int(pdb), nil, "a garbage record names version %d, which key %q of db %d uses", v, owner.key, ck.logical[owner.pdb])
		}
		ck.highest = max(ck.highest, v)
	}
	return it.Error()
}
