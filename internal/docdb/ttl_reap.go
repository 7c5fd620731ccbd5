package docdb

import (
	"bytes"
	"fmt"
	"slices"
	"sort"

	"github.com/mayfly/mayfly/internal/storage"
)

// The TTL reaper's deletions (a batch of one TTL source, under the
// collection's write lock).
//
// A batch reads its documents in key order with one iterator, so it only
// moves forward, and notes runs of documents that are adjacent in the store
// (no other document between them). A run of at least minRangeRun
// documents is deleted with one range deletion instead of one tombstone per
// document, and so is the span of TTL index entries the batch took when
// every document behind them goes. Documents written over time with
// increasing _ids (ObjectIds) and a TTL on their creation time fall due in
// _id order, so a storm is mostly such runs: the batch writes a handful of
// records instead of thousands, and Pebble drops whole files the ranges
// cover instead of carrying a tombstone per key down the levels.

// minRangeRun is the shortest run of adjacent documents deleted with a
// range deletion; shorter runs get point deletions, which cost readers of
// the range less.
const minRangeRun = 16

// keyRange is [start, end) in the store.
type keyRange struct{ start, end []byte }

// keyRanges is a sorted list of disjoint ranges.
type keyRanges []keyRange

// covers reports whether key lies in one of the ranges.
func (r keyRanges) covers(key []byte) bool {
	if len(r) == 0 {
		return false
	}
	i := sort.Search(len(r), func(i int) bool { return bytes.Compare(r[i].end, key) > 0 })
	return i < len(r) && bytes.Compare(r[i].start, key) <= 0
}

// successor returns the smallest key greater than key.
func successor(key []byte) []byte {
	return append(append(make([]byte, 0, len(key)+1), key...), 0)
}

// reapDocs deletes the due documents among ids (encoded _ids taken from
// ix's entries in sp) in one storage batch and returns how many it
// deleted, how many index keys went with them and their due times. The
// caller holds c's write lock.
func (e *Engine) reapDocs(c *collection, ix *indexMeta, nowMs int64, ids [][]byte, sp entrySpan) (n, keys int, dues []int64, err error) {
	p, err := e.planReap(c, ix, nowMs, ids, sp)
	if err != nil {
		return 0, 0, nil, err
	}
	// The lock keeps other writers out and the plan was read from the
	// store, so a plain batch will do: nothing reads it.
	w := &writer{e: e, c: c, meta: c.meta, b: e.store.NewBatch(), covered: p.ranges}
	defer w.close()
	for _, sd := range p.victims {
		if err := w.remove(sd); err != nil {
			return 0, 0, nil, err
		}
	}
	for _, r := range p.ranges {
		if err := w.b.DeleteRange(r.start, r.end); err != nil {
			return 0, 0, nil, err
		}
	}
	for _, ic := range w.d.idx {
		keys -= int(ic.keys) // the _id index counts one key per document
	}
	if err := w.commit(); err != nil {
		return 0, 0, nil, err
	}
	return len(p.victims), keys, p.dues, nil
}

// reapPlan is what one reap batch deletes: the documents, their due times,
// and the key ranges deleted whole (sorted).
type reapPlan struct {
	victims []*storedDoc
	dues    []int64
	ranges  keyRanges
}

// planReap reads the documents of ids in key order and keeps those still
// due (a document's date may have moved since it was indexed), noting the
// runs of adjacent ones and whether the entry span can go whole.
func (e *Engine) planReap(c *collection, ix *indexMeta, nowMs int64, ids [][]byte, sp entrySpan) (reapPlan, error) {
	var p reapPlan
	collID := c.meta.id
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, bytes.Compare)
	pre := docPrefix(collID)
	it, err := e.store.NewIter(pre, storage.PrefixEnd(pre))
	if err != nil {
		return p, err
	}
	defer it.Close()
	runStart, runLen := 0, 0 // the current run: victims[runStart:runStart+runLen]
	endRun := func() {
		if runLen >= minRangeRun {
			first, last := p.victims[runStart], p.victims[runStart+runLen-1]
			p.ranges = append(p.ranges, keyRange{docKey(collID, first.idEnc), successor(docKey(collID, last.idEnc))})
		}
		runLen = 0
	}
	notDue := false // a document behind a taken entry stays
	at := false     // it is at the document after the last victim
	for _, idEnc := range sorted {
		key := docKey(collID, idEnc)
		adjacent := at && bytes.Equal(it.Key(), key)
		if !adjacent {
			endRun()
			if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
				if err := it.Error(); err != nil {
					return p, err
				}
				at = false
				continue // gone already: its entry was stale
			}
		}
		sd, err := newStoredDocFast(bytes.Clone(it.Value()))
		if err != nil {
			return p, fmt.Errorf("docdb: stored document: %w", err)
		}
		due, ok := ix.dueTime(sd.doc)
		if !ok || due > nowMs {
			notDue, at = true, false
			endRun()
			continue
		}
		if runLen == 0 {
			runStart = len(p.victims)
		}
		p.victims = append(p.victims, sd)
		p.dues = append(p.dues, due)
		runLen++
		at = it.Next()
	}
	endRun()
	if err := it.Error(); err != nil {
		return p, err
	}
	if !notDue && ix.clusterColl == 0 && sp.first != nil {
		// Every entry from first to last belongs to a listed document, and
		// each of those that is stored goes: delete the span whole.
		lo, hi := sp.first, sp.last
		if bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo // a descending scan
		}
		p.ranges = append(p.ranges, keyRange{bytes.Clone(lo), successor(hi)})
	}
	slices.SortFunc(p.ranges, func(a, b keyRange) int { return bytes.Compare(a.start, b.start) })
	return p, nil
}
