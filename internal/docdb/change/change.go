package change

import (
	"bytes"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// Hook keeps something in step with the documents of a collection: the
// engine's writer calls every Hook registered with the engine for each
// document it inserts, replaces or deletes, so a feature that must follow
// document changes (a TTL policy's hidden index, expiry wake-ups) plugs in
// here instead of in the write path.
//
// DocumentChanged is told of one change to a document of the collection
// whose metadata is m: prev is the stored document replaced or deleted
// (nil for an insert), next the document written (nil for a delete). It
// runs under the collection's write lock, after the document and its index
// entries are in the batch, and before the batch commits. It may add
// writes to b, which commit atomically with the change, and ask for an
// expiry wake-up once they have; it must not commit or close the batch,
// and must not take the collection's write lock or the catalog lock for
// writing. An error aborts the write: the writer returns it and the batch
// is discarded.
type Hook interface {
	DocumentChanged(b *Batch, m *catalog.CollMeta, prev, next *stored.Doc) error
}

// Batch is a writer's current storage batch as hooks see it: writes may be
// added to it, and an expiry wake-up asked for after it commits.
type Batch struct {
	b *storage.Batch
	// wake is the earliest due time (Unix ms) asked for by WakeAt since the
	// last TakeWake; hasWake says whether there is one.
	wake    int64
	hasWake bool
	// cause describes the change being told; records are the change-log
	// records added since the last TakeRecords.
	cause   Cause
	records [][]byte
	// refs counts the records added by RecordRef since the last
	// TakeRecords; earlier holds the records that earlier writers of the
	// same storage batch handed on (a transaction's statements), set by
	// Follow.
	refs    int
	earlier *[][]byte
	// ns is the collection of the last record added, when RecordIn added
	// it, and nsDB, nsName and nsUUID its namespace and UUID then (see
	// SameCollection).
	ns           *catalog.CollMeta
	nsDB, nsName string
	nsUUID       []byte
}

// Cause says why a document changed, as far as the writer knows it.
type Cause struct {
	// Replacement is set when a document was replaced by a whole new one
	// (a replacement update) rather than modified by update operators.
	Replacement bool
	// Expiry is set when the expiry engine deleted the document; user
	// deletes never carry it.
	Expiry *Expiry
}

// Expiry describes an expiry deletion: the source that deleted the
// document (SourceTTL for a TTL index, SourcePolicy for a collection
// group's TTL policy), the name of the index or policy, and the time the
// document was due (Unix ms).
type Expiry struct {
	Source string
	Name   string
	DueAt  int64
}

// Expiry sources.
const (
	SourceTTL    = "ttl"
	SourcePolicy = "policy"
)

// SetCause sets the cause of the changes told next. The writer calls it
// before telling the hooks of a change.
func (cb *Batch) SetCause(c Cause) { cb.cause = c }

// Cause returns the cause of the change being told.
func (cb *Batch) Cause() Cause { return cb.cause }

// Record adds a change-log record to the batch. The writer hands the
// records to the change log when it commits the batch, which gives each
// its place in the log in the same storage batch.
func (cb *Batch) Record(rec []byte) {
	cb.records = append(cb.records, rec)
	cb.ns = nil
}

// RecordIn adds a change-log record of a change to a document of the
// collection m, so that SameCollection can tell the next one.
func (cb *Batch) RecordIn(m *catalog.CollMeta, rec []byte) {
	cb.records = append(cb.records, rec)
	cb.ns, cb.nsDB, cb.nsName, cb.nsUUID = m, m.DB, m.Name, m.UUID.Data
}

// RecordRef is RecordIn for a record that refers to the stored document
// it is of instead of holding what the event shows, so that a later change
// of that document in the same storage batch can find it (Rewrite).
func (cb *Batch) RecordRef(m *catalog.CollMeta, rec []byte) {
	cb.RecordIn(m, rec)
	cb.refs++
}

// Follow makes the records an earlier writer of the same storage batch
// handed on (*recs, which that writer's owner keeps appending to) part of
// what Rewrite goes through.
func (cb *Batch) Follow(recs *[][]byte) { cb.earlier = recs }

// Rewrite calls f with each record of the storage batch that may refer to
// a stored document (those added by RecordRef, and every record handed on
// by earlier writers), latest first, and replaces the record with what f
// returns when ok is set; it stops once f says so.
func (cb *Batch) Rewrite(f func(rec []byte) (repl []byte, ok, stop bool)) {
	lists := [][][]byte{cb.records}
	if cb.refs == 0 {
		lists = nil
	}
	if cb.earlier != nil {
		lists = append(lists, *cb.earlier)
	}
	for _, recs := range lists {
		for i := len(recs) - 1; i >= 0; i-- {
			repl, ok, stop := f(recs[i])
			if ok {
				recs[i] = repl
			}
			if stop {
				return
			}
		}
	}
}

// SameCollection reports whether the last record added since TakeRecords
// was added by RecordIn for the collection m, as m is now (the same
// metadata, its namespace and UUID unchanged): the change log leaves the
// namespace out of a record that follows one of the same collection in
// its batch.
func (cb *Batch) SameCollection(m *catalog.CollMeta) bool {
	return m != nil && cb.ns == m && cb.nsDB == m.DB && cb.nsName == m.Name && bytes.Equal(cb.nsUUID, m.UUID.Data)
}

// TakeRecords returns the records added since the last call, and forgets
// them. The writer calls it when it commits or discards its batch.
func (cb *Batch) TakeRecords() [][]byte {
	r := cb.records
	cb.records, cb.ns, cb.refs = nil, nil, 0
	return r
}

// Set adds the write of key to the batch.
func (cb *Batch) Set(key, value []byte) error { return cb.b.Set(key, value) }

// Get reads key through the batch: its own writes over the store.
func (cb *Batch) Get(key []byte) ([]byte, error) { return cb.b.Get(key) }

// Delete adds the deletion of key to the batch.
func (cb *Batch) Delete(key []byte) error { return cb.b.Delete(key) }

// WakeAt asks for the expiry engine to be woken for due (Unix ms) once the
// batch has committed; of several requests, the earliest is kept.
func (cb *Batch) WakeAt(due int64) {
	if !cb.hasWake || due < cb.wake {
		cb.wake, cb.hasWake = due, true
	}
}

// Bind makes b the storage batch that hooks write into. The writer calls
// it before calling the hooks; wake-ups asked for are kept.
func (cb *Batch) Bind(b *storage.Batch) { cb.b = b }

// TakeWake returns the earliest wake-up asked for since the last call, and
// forgets it. The writer calls it once its batch has committed.
func (cb *Batch) TakeWake() (due int64, ok bool) {
	due, ok = cb.wake, cb.hasWake
	cb.wake, cb.hasWake = 0, false
	return due, ok
}
