package kv

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/storage"
)

// Sets. A set's record holds only the element count; each member is the
// sub-key [version][member] with an empty value, so membership is one
// read and the members come out in byte order.

// setState is a set as read in a Tx.
type setState struct {
	orig     Meta
	found    bool
	version  uint64
	expireAt int64
	count    int64
	elems    int64 // element bytes (elembytes.go), as stored + this command's changes
	// known caches membership read (or written) by this command; with
	// knownAll (a set this command created) a member not in it is absent.
	known    map[string]bool
	knownAll bool
}

func (tx *Tx) setFor(key []byte, read bool) (setState, error) {
	m, ok, err := tx.lookupColl(key, TypeSet, read)
	if err != nil || !ok {
		return setState{}, err
	}
	return setState{orig: m, found: true, version: m.Version, expireAt: m.ExpireAt, count: int64(m.Count()), elems: m.ElemBytes}, nil
}

// setSave stores the record after the members changed; an empty set is
// deleted with `del`.
func (tx *Tx) setSave(key []byte, s *setState) error {
	if s.count == 0 {
		if s.found {
			orig := s.orig
			*s = setState{} // a later add starts a new set
			return tx.deleteColl(key, orig)
		}
		return nil
	}
	nm := Meta{Type: TypeSet, Version: s.version, ExpireAt: s.expireAt}
	nm.SetCount(uint64(s.count))
	var err error
	if nm.ElemBytes, err = tx.savedElemBytes(s.orig, s.found, s.elems, nm); err != nil {
		return err
	}
	if err := tx.PutMeta(key, s.orig, s.found, nm); err != nil {
		return err
	}
	s.orig, s.found = nm, true
	return nil
}

func (tx *Tx) setHas(s *setState, member []byte) (bool, error) {
	if s.version == 0 {
		return false, nil
	}
	if has, ok := s.known[string(member)]; ok || s.knownAll {
		return has, nil
	}
	_, err := tx.elems(s.version).Get(tx.elemKey(s.version, member))
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// setAdd adds member and reports whether it was new.
func (tx *Tx) setAdd(s *setState, member []byte) (bool, error) {
	if s.version == 0 {
		s.version = tx.NewVersion()
		s.known, s.knownAll = make(map[string]bool), true
	}
	has, err := tx.setHas(s, member)
	if err != nil || has {
		return false, err
	}
	if err := tx.indexedBatch().Set(tx.elemKey(s.version, member), nil); err != nil {
		return false, err
	}
	if s.known != nil {
		s.known[string(member)] = true
	}
	s.count++
	s.elems += int64(len(member))
	return true, nil
}

// setRem removes member and reports whether it was there.
func (tx *Tx) setRem(s *setState, member []byte) (bool, error) {
	has, err := tx.setHas(s, member)
	if err != nil || !has {
		return false, err
	}
	if err := tx.indexedBatch().Delete(tx.elemKey(s.version, member)); err != nil {
		return false, err
	}
	if s.known != nil {
		s.known[string(member)] = false
	}
	s.count--
	s.elems -= int64(len(member))
	return true, nil
}

// prefetchMin is the number of elements from which a command reads the
// ones it names with one ordered walk instead of one lookup each.
const prefetchMin = 16

// prefetch reads which of keys (sub-key suffixes under namespace ns of
// collection version v) are stored, and their values, seeking one
// iterator through them in order: far cheaper than a lookup per key for
// commands naming many elements.
func (tx *Tx) prefetch(v uint64, ns []byte, keys [][]byte) (map[string][]byte, error) {
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, bytes.Compare)
	sorted = slices.CompactFunc(sorted, bytes.Equal)
	lo := tx.elemKey(v, ns)
	it, err := tx.elems(v).NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(sorted))
	target := append([]byte{}, lo...)
	for _, k := range sorted {
		target = append(target[:len(lo)], k...)
		if it.SeekGE(target) && bytes.Equal(it.Key(), target) {
			out[string(k)] = append([]byte{}, it.Value()...)
		}
	}
	return out, it.Close()
}

// collMembers returns every sub-key suffix (and value) under namespace ns
// of collection version v, in order.
func (tx *Tx) collMembers(v uint64, ns []byte) (keys, vals [][]byte, err error) {
	lo := tx.elemKey(v, ns)
	it, err := tx.elems(v).NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		keys = append(keys, append([]byte{}, it.Key()[len(lo):]...))
		vals = append(vals, append([]byte{}, it.Value()...))
	}
	return keys, vals, it.Close()
}

func (tx *Tx) setMembers(s *setState) ([][]byte, error) {
	if !s.found {
		return [][]byte{}, nil
	}
	k, _, err := tx.collMembers(s.version, nil)
	if k == nil {
		k = [][]byte{}
	}
	return k, err
}

// setPrefetch reads the membership of many members at once.
func (tx *Tx) setPrefetch(s *setState, members [][]byte) error {
	if !s.found || len(members) < prefetchMin {
		return nil
	}
	got, err := tx.prefetch(s.version, nil, members)
	if err != nil {
		return err
	}
	s.known = make(map[string]bool, len(members))
	for _, m := range members {
		_, s.known[string(m)] = got[string(m)]
	}
	return nil
}

// SAdd adds members to the set at key and returns how many were new. The
// event is `sadd`, only when something was added.
func (tx *Tx) SAdd(key []byte, members [][]byte) (int64, error) {
	s, err := tx.setFor(key, false)
	if err != nil {
		return 0, err
	}
	if err := tx.setPrefetch(&s, members); err != nil {
		return 0, err
	}
	var added int64
	for _, m := range members {
		ok, err := tx.setAdd(&s, m)
		if err != nil {
			return 0, err
		}
		if ok {
			added++
		}
	}
	if added > 0 {
		if err := tx.setSave(key, &s); err != nil {
			return 0, err
		}
		tx.notify(ClassSet, "sadd", key)
	}
	return added, nil
}

// SRem removes members and returns how many were there. Events: `srem`,
// then `del` when the set is emptied.
func (tx *Tx) SRem(key []byte, members [][]byte) (int64, error) {
	s, err := tx.setFor(key, false)
	if err != nil || !s.found {
		return 0, err
	}
	if err := tx.setPrefetch(&s, members); err != nil {
		return 0, err
	}
	var removed int64
	for _, m := range members {
		ok, err := tx.setRem(&s, m)
		if err != nil {
			return 0, err
		}
		if ok {
			removed++
		}
		if s.count == 0 {
			break
		}
	}
	if removed == 0 {
		return 0, nil
	}
	tx.notify(ClassSet, "srem", key)
	return removed, tx.setSave(key, &s)
}

// SMembers returns the members of the set at key, in byte order.
func (tx *Tx) SMembers(key []byte) ([][]byte, error) {
	s, err := tx.setFor(key, true)
	if err != nil {
		return nil, err
	}
	return tx.setMembers(&s)
}

// SIsMember reports whether each member is in the set at key.
func (tx *Tx) SIsMember(key []byte, members [][]byte) ([]bool, error) {
	s, err := tx.setFor(key, true)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(members))
	for i, m := range members {
		if out[i], err = tx.setHas(&s, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SCard returns the number of members of the set at key.
func (tx *Tx) SCard(key []byte) (int64, error) {
	s, err := tx.setFor(key, true)
	return s.count, err
}

// SPop removes and returns n random members (n < 0: one, for SPOP without
// a count); ok is false when the key is missing. Events: `spop`, then
// `del` when the set is emptied.
func (tx *Tx) SPop(key []byte, n int64) ([][]byte, bool, error) {
	s, err := tx.setFor(key, false)
	if err != nil || !s.found {
		return nil, false, err
	}
	if n == 0 {
		return [][]byte{}, true, nil
	}
	if n < 0 {
		n = 1
	}
	var picked [][]byte
	if n >= s.count {
		if picked, err = tx.setMembers(&s); err != nil {
			return nil, false, err
		}
	} else if picked, _, err = tx.collRandom(s.version, nil, s.count, n, true); err != nil {
		return nil, false, err
	}
	for _, m := range picked {
		if _, err := tx.setRem(&s, m); err != nil {
			return nil, false, err
		}
	}
	tx.notify(ClassSet, "spop", key)
	return picked, true, tx.setSave(key, &s)
}

// SRandMember returns random members without removing them: n > 0
// distinct ones (at most the set's size), n < 0 |n| picks that may
// repeat (ErrTooManyPicks beyond MaxRandomPicks). ok is false when the key
// is missing.
func (tx *Tx) SRandMember(key []byte, n int64) ([][]byte, bool, error) {
	s, err := tx.setFor(key, true)
	if err != nil || !s.found {
		return nil, false, err
	}
	unique := n >= 0
	if !unique {
		n = -n
	}
	if unique && n >= s.count {
		out, err := tx.setMembers(&s)
		return out, true, err
	}
	out, _, err := tx.collRandom(s.version, nil, s.count, n, unique)
	return out, true, err
}

// SMove moves member from src to dst and reports whether it was in src.
// A dst of another type is an error (checked only when src exists).
// Events: `srem` on src (and `del` when emptied), then `sadd` on dst when
// the member was new there.
func (tx *Tx) SMove(src, dst, member []byte) (bool, error) {
	ss, err := tx.setFor(src, false)
	if err != nil {
		return false, err
	}
	if !ss.found {
		return false, nil
	}
	ds, err := tx.setFor(dst, false)
	if err != nil {
		return false, err
	}
	if bytes.Equal(src, dst) {
		return tx.setHas(&ss, member)
	}
	ok, err := tx.setRem(&ss, member)
	if err != nil || !ok {
		return false, err
	}
	tx.notify(ClassSet, "srem", src)
	if err := tx.setSave(src, &ss); err != nil {
		return false, err
	}
	added, err := tx.setAdd(&ds, member)
	if err != nil {
		return false, err
	}
	if added {
		if err := tx.setSave(dst, &ds); err != nil {
			return false, err
		}
		tx.notify(ClassSet, "sadd", dst)
	}
	return true, nil
}

// SetOp is a set operation.
type SetOp uint8

// The set operations.
const (
	SetUnion SetOp = iota
	SetInter
	SetDiff
)

// setsFor reads the sets at keys for SINTER and friends: a missing key is
// an empty set, any key of another type an error.
func (tx *Tx) setsFor(keys [][]byte) ([]setState, error) {
	out := make([]setState, len(keys))
	for i, k := range keys {
		s, err := tx.setFor(k, true)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// setCompute runs op over the sets and returns the members of the result
// in byte order; limit > 0 stops an intersection after that many members
// (SINTERCARD).
func (tx *Tx) setCompute(op SetOp, sets []setState, limit int64) ([][]byte, error) {
	switch op {
	case SetInter:
		for _, s := range sets {
			if !s.found {
				return [][]byte{}, nil
			}
		}
		// Walk the smallest set and probe the others.
		order := slices.Clone(sets)
		slices.SortFunc(order, func(a, b setState) int { return cmp.Compare(a.count, b.count) })
		base, err := tx.setMembers(&order[0])
		if err != nil {
			return nil, err
		}
		out := [][]byte{}
	next:
		for _, m := range base {
			for i := 1; i < len(order); i++ {
				has, err := tx.setHas(&order[i], m)
				if err != nil {
					return nil, err
				}
				if !has {
					continue next
				}
			}
			out = append(out, m)
			if limit > 0 && int64(len(out)) >= limit {
				break
			}
		}
		return out, nil
	case SetUnion:
		seen := make(map[string]bool)
		out := [][]byte{}
		for i := range sets {
			ms, err := tx.setMembers(&sets[i])
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if !seen[string(m)] {
					seen[string(m)] = true
					out = append(out, m)
				}
			}
		}
		slices.SortFunc(out, bytes.Compare)
		return out, nil
	default:
		if len(sets) == 0 || !sets[0].found {
			return [][]byte{}, nil
		}
		base, err := tx.setMembers(&sets[0])
		if err != nil {
			return nil, err
		}
		out := [][]byte{}
	outer:
		for _, m := range base {
			for i := 1; i < len(sets); i++ {
				if sets[i].found && sets[i].version == sets[0].version {
					continue outer // the same key: everything goes
				}
				has, err := tx.setHas(&sets[i], m)
				if err != nil {
					return nil, err
				}
				if has {
					continue outer
				}
			}
			out = append(out, m)
		}
		return out, nil
	}
}

// SetCompute returns the members of the union, intersection or difference
// (first minus the rest) of the sets at keys, in byte order. A missing key
// is an empty set; a key of another type is ErrWrongType.
func (tx *Tx) SetCompute(op SetOp, keys [][]byte) ([][]byte, error) {
	sets, err := tx.setsFor(keys)
	if err != nil {
		return nil, err
	}
	return tx.setCompute(op, sets, 0)
}

// SInterCard returns the size of the intersection of the sets at keys,
// counting at most limit members when limit > 0.
func (tx *Tx) SInterCard(keys [][]byte, limit int64) (int64, error) {
	sets, err := tx.setsFor(keys)
	if err != nil {
		return 0, err
	}
	out, err := tx.setCompute(SetInter, sets, limit)
	return int64(len(out)), err
}

var setStoreEvents = [...]string{SetUnion: "sunionstore", SetInter: "sinterstore", SetDiff: "sdiffstore"}

// SetStore stores the result of op over the sets at keys in dst, replacing
// it (and its expiry), and returns the result's size. An empty result
// deletes dst (`del` when it existed); otherwise the event is
// `sunionstore`, `sinterstore` or `sdiffstore`.
func (tx *Tx) SetStore(op SetOp, dst []byte, keys [][]byte) (int64, error) {
	sets, err := tx.setsFor(keys)
	if err != nil {
		return 0, err
	}
	members, err := tx.setCompute(op, sets, 0)
	if err != nil {
		return 0, err
	}
	return int64(len(members)), tx.storeSet(dst, members, setStoreEvents[op])
}

// storeSet replaces dst with a set of members (already distinct).
func (tx *Tx) storeSet(dst []byte, members [][]byte, event string) error {
	old, found, err := tx.Lookup(dst)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		if found {
			return tx.deleteColl(dst, old)
		}
		return nil
	}
	nm := Meta{Type: TypeSet, Version: tx.NewVersion()}
	nm.SetCount(uint64(len(members)))
	b := tx.batch()
	for _, m := range members {
		nm.ElemBytes += int64(len(m))
		if err := b.Set(tx.elemKey(nm.Version, m), nil); err != nil {
			return err
		}
	}
	if err := tx.PutMeta(dst, old, found, nm); err != nil {
		return err
	}
	tx.notify(ClassSet, event, dst)
	return nil
}

// CollScanOptions are the MATCH, COUNT and NOVALUES options of HSCAN,
// SSCAN and ZSCAN.
type CollScanOptions struct {
	Match    []byte // nil for all
	Count    int    // elements to visit; 0 means 10
	NoValues bool   // HSCAN NOVALUES
}

// collScan walks up to count elements under namespace ns of collection
// version v after the position cursor names, calling fn with each element
// (its sub-key suffix and value). It returns the next cursor, 0 when done.
func (tx *Tx) collScan(v uint64, ns []byte, cursor uint64, count int, fn func(k, val []byte) error) (uint64, error) {
	if count <= 0 {
		count = 10
	}
	lo := tx.elemKey(v, ns)
	hi := storage.PrefixEnd(lo)
	start := lo
	if cursor != 0 {
		if p, ok := tx.s.scans.get(cursor); ok && p.pdb == tx.pdb && len(p.after) >= 8 &&
			binary.BigEndian.Uint64(p.after) == v {
			start = append(append(append([]byte{}, lo...), p.after[8:]...), 0)
		}
	}
	it, err := tx.reader().NewIter(start, hi)
	if err != nil {
		return 0, err
	}
	visited := 0
	var last []byte
	more := false
	for ok := it.First(); ok; ok = it.Next() {
		if visited == count {
			more = true
			break
		}
		visited++
		if tx.stopping(visited) {
			it.Close()
			return 0, ErrStopped
		}
		k := it.Key()[len(lo):]
		last = append(last[:0], k...)
		if err := fn(k, it.Value()); err != nil {
			it.Close()
			return 0, err
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	if !more {
		return 0, nil
	}
	after := binary.BigEndian.AppendUint64(nil, v)
	return tx.s.scans.put(scanPos{pdb: tx.pdb, after: append(after, last...)}), nil
}

// SScan returns a page of the members of the set at key and the next
// cursor (0 when the walk is complete).
func (tx *Tx) SScan(key []byte, cursor uint64, o CollScanOptions) (uint64, [][]byte, error) {
	s, err := tx.setFor(key, true)
	if err != nil || !s.found {
		return 0, [][]byte{}, err
	}
	out := [][]byte{}
	next, err := tx.collScan(s.version, nil, cursor, o.Count, func(k, _ []byte) error {
		if o.Match == nil || glob.Match(o.Match, k, false) {
			out = append(out, append([]byte{}, k...))
		}
		return nil
	})
	return next, out, err
}
