package events

import "sync"

// maxRecent bounds the inserts the log remembers: past it an insert keeps
// a copy of its document in its content entry, as if it had been changed
// at once.
const maxRecent = 1 << 20

// recentInserts remembers the inserts whose records refer to their stored
// document and whose content may still be needed: those given a content
// id within ContentRetention. It is kept in memory, and rebuilt from the
// log when the log opens.
type recentInserts struct {
	mu sync.Mutex
	// byColl maps a collection id and an encoded _id to the content id of
	// the document's last insert.
	byColl map[uint64]map[string]uint64
	// order lists the inserts in the order of their content ids, for
	// forgetting them by age.
	order []recentInsert
	n     int
}

type recentInsert struct {
	cid   uint64
	idEnc string
	x     uint64
}

func newRecentInserts() *recentInserts {
	return &recentInserts{byColl: map[uint64]map[string]uint64{}}
}

// add remembers the insert of document idEnc in collection cid with content
// id x; false when the set is full.
func (r *recentInserts) add(cid uint64, idEnc []byte, x uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n >= maxRecent {
		return false
	}
	m := r.byColl[cid]
	if m == nil {
		m = map[string]uint64{}
		r.byColl[cid] = m
	}
	k := string(idEnc)
	if _, ok := m[k]; !ok {
		r.n++
	}
	m[k] = x
	r.order = append(r.order, recentInsert{cid: cid, idEnc: k, x: x})
	return true
}

// get returns the content id of the last insert of document idEnc in
// collection cid, if it is remembered.
func (r *recentInserts) get(cid uint64, idEnc []byte) (uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.byColl[cid][string(idEnc)]
	return x, ok
}

// inColl returns the encoded _ids and content ids remembered for
// collection cid.
func (r *recentInserts) inColl(cid uint64) map[string]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]uint64, len(r.byColl[cid]))
	for k, x := range r.byColl[cid] {
		out[k] = x
	}
	return out
}

// forget drops the inserts whose content ids are below cut.
func (r *recentInserts) forget(cut uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := 0
	for ; i < len(r.order) && r.order[i].x < cut; i++ {
		e := r.order[i]
		if m := r.byColl[e.cid]; m != nil && m[e.idEnc] == e.x {
			delete(m, e.idEnc)
			r.n--
			if len(m) == 0 {
				delete(r.byColl, e.cid)
			}
		}
	}
	if i > 0 {
		r.order = append(r.order[:0:0], r.order[i:]...)
	}
}
