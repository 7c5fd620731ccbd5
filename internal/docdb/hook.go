package docdb

import (
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// WriteHook keeps something in step with the documents of a collection:
// the writer calls every hook registered with the Engine (Engine.hooks) for
// each document it inserts, replaces or deletes, so a feature that must
// follow document changes (a TTL policy's hidden index, expiry wake-ups)
// plugs in here instead of in the write path.
//
// DocumentChanged is told of one change to a document of the collection
// whose metadata is m: prev is the stored document replaced or deleted
// (nil for an insert), next the document written (nil for a delete). It
// runs under the collection's write lock, after the document and its index
// entries are in the batch, and before the batch commits. It may add
// writes to wb, which commit atomically with the change, and ask for an
// expiry wake-up once they have; it must not commit or close the batch,
// and must not take the collection's write lock or Engine.mu for writing.
// An error aborts the write: the writer returns it and the batch is
// discarded.
type WriteHook interface {
	DocumentChanged(wb *WriteBatch, m *catalog.CollMeta, prev, next *stored.Doc) error
}

// WriteBatch is a writer's current storage batch as write hooks see it:
// writes may be added to it, and an expiry wake-up asked for after it
// commits.
type WriteBatch struct {
	b *storage.Batch
	// wake is the earliest due time (Unix ms) asked for by WakeAt since the
	// last commit; hasWake says whether there is one.
	wake    int64
	hasWake bool
}

// Set adds the write of key to the batch.
func (wb *WriteBatch) Set(key, value []byte) error { return wb.b.Set(key, value) }

// Delete adds the deletion of key to the batch.
func (wb *WriteBatch) Delete(key []byte) error { return wb.b.Delete(key) }

// WakeAt asks for the expiry engine to be woken for due (Unix ms) once the
// batch has committed; of several requests, the earliest is kept.
func (wb *WriteBatch) WakeAt(due int64) {
	if !wb.hasWake || due < wb.wake {
		wb.wake, wb.hasWake = due, true
	}
}

// documentChanged tells every write hook of one document change in the
// writer's current batch (see WriteHook).
func (w *writer) documentChanged(prev, next *stored.Doc) error {
	w.wb.b = w.b
	for _, h := range w.e.hooks {
		if err := h.DocumentChanged(&w.wb, w.meta, prev, next); err != nil {
			return err
		}
	}
	return nil
}

// ttlWakeHook wakes the expiry engine when a document is written with a
// TTL due time (under one of its collection's TTL indexes, or a clustered
// collection's expireAfterSeconds) that may be earlier than what the
// expiry engine planned.
type ttlWakeHook struct{ e *Engine }

// DocumentChanged implements WriteHook.
func (h ttlWakeHook) DocumentChanged(wb *WriteBatch, m *catalog.CollMeta, _, next *stored.Doc) error {
	if next == nil || h.e.opts.Expiry == nil {
		return nil
	}
	for _, ix := range m.Indexes {
		if due, ok := ix.DueTime(next.Doc); ok {
			wb.WakeAt(due)
		}
	}
	if ix := m.ClusteredTTLIndex(); ix != nil {
		if due, ok := ix.DueTime(next.Doc); ok {
			wb.WakeAt(due)
		}
	}
	return nil
}
