package docdb

import (
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// documentChanged tells every write hook of one document change in the
// writer's current batch (see change.Hook).
func (w *writer) documentChanged(prev, next *stored.Doc) error {
	w.wb.Bind(w.b)
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

// DocumentChanged implements change.Hook.
func (h ttlWakeHook) DocumentChanged(b *change.Batch, m *catalog.CollMeta, _, next *stored.Doc) error {
	if next == nil || h.e.opts.Expiry == nil {
		return nil
	}
	for _, ix := range m.Indexes {
		if due, ok := ix.DueTime(next.Doc); ok {
			b.WakeAt(due)
		}
	}
	if ix := m.ClusteredTTLIndex(); ix != nil {
		if due, ok := ix.DueTime(next.Doc); ok {
			b.WakeAt(due)
		}
	}
	return nil
}
