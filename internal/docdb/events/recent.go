package events

import (
	"encoding/binary"
	"hash/maphash"
	"sync"
)

// maxRecent bounds the inserts the log remembers: past it insertIndex
// searches the log for those it has no room for.
const maxRecent = 1 << 20

// compactAfter is how many forgotten inserts the set keeps in its order
// before it copies the live ones down; below it, or while the forgotten
// ones are fewer than the live ones, forgetting moves an index only.
const compactAfter = 4096

// recentInserts remembers the inserts whose records refer to their stored
// document and whose content may still be needed: those given a content
// id within ContentRetention. It is kept in memory, filled from the log
// by insertIndex.
//
// Nothing it holds is a pointer, so the garbage collector does not scan
// it however many inserts it remembers: a document is known by a 128-bit
// keyed hash of its collection id and encoded _id (two maphash sums under
// seeds drawn when the log opens), and the encoded _ids, needed only when
// a collection is dropped, are kept one after another in one byte slice.
type recentInserts struct {
	mu    sync.Mutex
	seeds [2]maphash.Seed
	// limit is how many documents it remembers at most (maxRecent).
	limit int
	// last maps a document to the content id of its last insert.
	last map[recentKey]uint64
	// order lists the inserts in the order of their content ids, for
	// forgetting them by age; those before head are forgotten.
	order []recentInsert
	head  int
	// ids holds the encoded _ids of order, from the offset idsBase of the
	// stream of every _id added on.
	ids     []byte
	idsBase int
}

// recentKey is a document's hash in recentInserts.
type recentKey [2]uint64

type recentInsert struct {
	key recentKey
	cid uint64
	x   uint64
	// off and n place the encoded _id in the stream of ids.
	off int
	n   int
}

func newRecentInserts() *recentInserts {
	return &recentInserts{
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		limit: maxRecent,
		last:  map[recentKey]uint64{},
	}
}

// key returns the hash of document idEnc in collection cid.
func (r *recentInserts) key(cid uint64, idEnc []byte) recentKey {
	var k recentKey
	var c [8]byte
	binary.BigEndian.PutUint64(c[:], cid)
	for i, s := range r.seeds {
		var h maphash.Hash
		h.SetSeed(s)
		_, _ = h.Write(c[:])
		_, _ = h.Write(idEnc)
		k[i] = h.Sum64()
	}
	return k
}

// add remembers the insert of document idEnc in collection cid with content
// id x (again: nothing changes); false when the set is full.
func (r *recentInserts) add(cid uint64, idEnc []byte, x uint64) bool {
	k := r.key(cid, idEnc)
	r.mu.Lock()
	defer r.mu.Unlock()
	y, ok := r.last[k]
	if ok && y == x {
		return true
	}
	if !ok && len(r.last) >= r.limit {
		return false
	}
	r.last[k] = x
	r.order = append(r.order, recentInsert{key: k, cid: cid, x: x, off: r.idsBase + len(r.ids), n: len(idEnc)})
	r.ids = append(r.ids, idEnc...)
	return true
}

// get returns the content id of the last insert of document idEnc in
// collection cid, if it is remembered.
func (r *recentInserts) get(cid uint64, idEnc []byte) (uint64, bool) {
	k := r.key(cid, idEnc)
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.last[k]
	return x, ok
}

// inColl returns the encoded _ids and content ids remembered for
// collection cid.
func (r *recentInserts) inColl(cid uint64) map[string]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]uint64{}
	for _, e := range r.order[r.head:] {
		if e.cid == cid && r.last[e.key] == e.x {
			out[string(r.ids[e.off-r.idsBase:e.off-r.idsBase+e.n])] = e.x
		}
	}
	return out
}

// forget drops the inserts whose content ids are below cut.
func (r *recentInserts) forget(cut uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ; r.head < len(r.order) && r.order[r.head].x < cut; r.head++ {
		e := r.order[r.head]
		if r.last[e.key] == e.x {
			delete(r.last, e.key)
		}
	}
	live := len(r.order) - r.head
	if r.head < compactAfter || r.head < live {
		return
	}
	if live == 0 {
		r.idsBase += len(r.ids)
		r.order, r.ids, r.head = r.order[:0], r.ids[:0], 0
		return
	}
	from := r.order[r.head].off - r.idsBase
	r.order = append(make([]recentInsert, 0, 2*live), r.order[r.head:]...)
	r.ids = append(make([]byte, 0, 2*(len(r.ids)-from)), r.ids[from:]...)
	r.idsBase += from
	r.head = 0
}
