package events

import (
	"bytes"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// insertIndex finds the insert whose record still refers to a stored
// document, for the write that changes or deletes that document (which
// then keeps the document as the insert's content) and for the drop of its
// collection. Inserts do nothing for it: it is built from the log itself,
// by reading the records committed since it last looked, when one of those
// writes asks, so a log that only ever sees inserts never builds it.
//
// It indexes up to maxRecent inserts (recentInserts). Once keepAt (an
// eighth less) inserts whose content may be kept refer to their document
// (refCount, which counts committed ones), further inserts keep a copy of
// their document as content at once, so the index has room for the
// inserts still in flight when the count was reached; those it had no
// room for even so are a range of sequence numbers searched record by record,
// up to the range's end only, until they are older than the content kept.
type insertIndex struct {
	// mu is held while the index reads the log and answers.
	mu     sync.Mutex
	recent *recentInserts
	// keepAt is how many inserts referring to their document the log
	// counts before inserts keep their document as content at once.
	keepAt int
	// scanned is a sequence number every record up to which the index
	// has read; scannedLast the log's last number when it did, so that a
	// log that gave none since has nothing new.
	scanned, scannedLast uint64
	// unindexedFrom and unindexedTo bound the content ids of the inserts
	// recent had no room for; unindexedTo is zero when there are none.
	unindexedFrom, unindexedTo uint64
}

func newInsertIndex() *insertIndex {
	return &insertIndex{recent: newRecentInserts(), keepAt: maxRecent - maxRecent/8}
}

// toEnd is the bound of eachInsert that reads to the end of the log.
const toEnd = ^uint64(0)

// eachInsert calls f with the collection id, encoded _id and content id of
// each insert record that refers to its stored document, among the records
// with sequence numbers after after and up to until, or until f returns
// false. No record past until is read.
func (l *Log) eachInsert(after, until uint64, f func(cid uint64, idEnc []byte, x uint64) bool) error {
	end := storage.PrefixEnd(keyPrefix)
	if until != toEnd {
		end = Key(until + 1)
	}
	it, err := l.store.NewIter(keyPrefix, end)
	if err != nil {
		return err
	}
	defer it.Close()
	ok := it.SeekLT(Key(after + 2))
	if !ok {
		ok = it.First()
	}
	for ; ok; ok = it.Next() {
		first, _, recs, err := decodeEntry(it.Key(), it.Value())
		if err != nil {
			return err
		}
		for i, raw := range recs {
			seq := first + uint64(i)
			if seq <= after {
				continue
			}
			if seq > until {
				return nil
			}
			if isInsertRef(raw) {
				ir, err := decodeInsertRef(raw)
				if err != nil {
					return err
				}
				if !f(ir.cid, ir.idEnc, seq) {
					return nil
				}
				continue
			}
			// A record written before inserts had their compact form
			// refers to its document when it has a hash.
			if op, _ := bson.Raw(raw).Lookup("op").StringValueOK(); op != OpInsert {
				continue
			}
			if _, err := bson.Raw(raw).LookupErr("hash"); err != nil {
				continue
			}
			r, err := DecodeRecord(raw)
			if err != nil {
				return err
			}
			if len(r.Hash) > 0 && r.Ref != 0 && !f(r.CollID, r.IDEnc, r.Ref) {
				return nil
			}
		}
	}
	return it.Error()
}

// catchUp indexes the inserts committed since the index last read the
// log. The caller holds the index's mu.
func (l *Log) catchUp() error {
	ix := l.inserts
	l.mu.Lock()
	last, visible := l.last, l.visible
	l.mu.Unlock()
	if last == ix.scannedLast && ix.scanned == last {
		return nil
	}
	after := ix.scanned
	if cut := l.contentCut(); cut > 0 && cut-1 > after {
		after = cut - 1
	}
	err := l.eachInsert(after, toEnd, func(cid uint64, idEnc []byte, x uint64) bool {
		if !ix.recent.add(cid, idEnc, x) {
			if ix.unindexedTo == 0 {
				ix.unindexedFrom = x
			}
			ix.unindexedTo = max(ix.unindexedTo, x)
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("events: index inserts: %w", err)
	}
	// Every batch numbered up to visible had committed or failed before
	// the log was read; those after it are read again next time.
	ix.scanned, ix.scannedLast = visible, last
	return nil
}

// unindexedAfter returns the sequence number after which the inserts the
// index had no room for are searched, and false when none is kept any
// more. The caller holds the index's mu.
func (l *Log) unindexedAfter(cut uint64) (uint64, bool) {
	ix := l.inserts
	if ix.unindexedTo == 0 {
		return 0, false
	}
	if ix.unindexedTo < cut {
		ix.unindexedFrom, ix.unindexedTo = 0, 0
		return 0, false
	}
	// A content id is given no later than its record's number.
	from := max(ix.unindexedFrom, cut)
	if from == 0 {
		return 0, true
	}
	return from - 1, true
}

// insertOf returns the content id of the last committed insert of
// document idEnc in collection cid whose record refers to the stored
// document and whose content may still be kept.
func (l *Log) insertOf(cid uint64, idEnc []byte) (uint64, bool, error) {
	ix := l.inserts
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := l.catchUp(); err != nil {
		return 0, false, err
	}
	cut := l.contentCut()
	x, ok := ix.recent.get(cid, idEnc)
	after, search := l.unindexedAfter(cut)
	if !search {
		return x, ok && x >= cut, nil
	}
	err := l.eachInsert(after, ix.unindexedTo, func(c uint64, id []byte, y uint64) bool {
		if c == cid && y >= cut && bytes.Equal(id, idEnc) && (!ok || y > x) {
			x, ok = y, true
		}
		return true
	})
	if err != nil {
		return 0, false, fmt.Errorf("events: search inserts: %w", err)
	}
	return x, ok && x >= cut, nil
}

// insertsIn returns the encoded _ids and content ids of the last committed
// insert of each document of collection cid whose record refers to the
// stored document and whose content may still be kept.
func (l *Log) insertsIn(cid uint64) (map[string]uint64, error) {
	ix := l.inserts
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := l.catchUp(); err != nil {
		return nil, err
	}
	cut := l.contentCut()
	out := ix.recent.inColl(cid)
	for id, x := range out {
		if x < cut {
			delete(out, id)
		}
	}
	after, search := l.unindexedAfter(cut)
	if !search {
		return out, nil
	}
	err := l.eachInsert(after, ix.unindexedTo, func(c uint64, id []byte, y uint64) bool {
		if c == cid && y >= cut && y > out[string(id)] {
			out[string(id)] = y
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("events: search inserts: %w", err)
	}
	return out, nil
}

// forgetInserts drops the inserts whose content ids are below cut.
func (l *Log) forgetInserts(cut uint64) {
	l.mu.Lock()
	l.refs.forget(cut)
	l.mu.Unlock()
	ix := l.inserts
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.recent.forget(cut)
}

// resetInserts empties the index, for a store whose records another
// process wrote: it is built again from the log when next asked.
func (l *Log) resetInserts() {
	ix := l.inserts
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.recent = newRecentInserts()
	ix.scanned, ix.scannedLast, ix.unindexedFrom, ix.unindexedTo = 0, 0, 0, 0
}
