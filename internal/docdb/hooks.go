package docdb

import (
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// documentChanged tells every write hook of one document change in the
// writer's current batch (see change.Hook).
func (w *writer) documentChanged(prev, next *stored.Doc) error {
	w.wb.Bind(w.b)
	w.wb.SetCause(w.cause)
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

// commitLogged commits b with the change-log records its hooks added, in
// the same storage batch.
func (e *Engine) commitLogged(b *storage.Batch, recs [][]byte) error {
	if e.events == nil || len(recs) == 0 {
		return b.Commit()
	}
	return e.events.Commit(b, recs, b.Commit)
}

// logCatalog commits b, a catalog change, with its change-log record: op
// on the collection m, or on database db when m is nil (dropDatabase),
// renamed to toDB.toColl for a rename.
func (e *Engine) logCatalog(b *storage.Batch, op, db string, m *catalog.CollMeta, toDB, toColl string) error {
	return e.logCatalogAfter(b, nil, op, db, m, toDB, toColl, nil)
}

// logCatalogAfter is logCatalog with records of the same batch that come
// before the change's own (a rename's drop of its target, dropped).
func (e *Engine) logCatalogAfter(b *storage.Batch, before [][]byte, op, db string, m *catalog.CollMeta, toDB, toColl string, dropped *catalog.CollMeta) error {
	if e.events == nil {
		return b.Commit()
	}
	if op == events.OpDrop {
		if err := e.events.CollectionDropped(b, m); err != nil {
			return err
		}
	}
	rec, err := catalogRecord(op, db, m, toDB, toColl, dropped)
	if err != nil {
		return err
	}
	return e.events.Commit(b, append(before, rec), b.Commit)
}

// catalogRecord encodes the change-log record of a catalog change, with
// its operation description (change_ddl.go); dropped is the target a
// rename replaced.
func catalogRecord(op, db string, m *catalog.CollMeta, toDB, toColl string, dropped *catalog.CollMeta) ([]byte, error) {
	if m == nil {
		return events.CatalogRecord(op, db, "", nil, toDB, toColl)
	}
	u := m.UUID
	r := events.Record{Op: op, DB: m.DB, Coll: m.Name, UUID: &u, ToDB: toDB, ToColl: toColl}
	return events.DDLRecord(r, catalogDescription(op, m, toDB, toColl, dropped), nil)
}
