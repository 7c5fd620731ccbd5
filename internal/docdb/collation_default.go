package docdb

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// A collection created with a collation (create's collation option) uses
// it as the default of every command on it that gives none: queries,
// updates, deletes, findAndModify, count, distinct, aggregate, and the
// indexes created without one (IndexSpec.request). A command's own
// collation, {locale: "simple"} included, replaces the default.

// collationOr returns spec, or the default collation of db.coll when spec
// is empty (nil when the collection has none or does not exist), as seen
// from ctx (a collection its transaction created included).
func (e *Engine) collationOr(ctx context.Context, db, coll string, spec bson.D) bson.D {
	if len(spec) > 0 {
		return spec
	}
	if c := txnCreated(ctx, db, coll); c != nil {
		return defaultCollation(c.Meta)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	c := e.cat.Lookup(db, coll)
	if c == nil {
		return nil
	}
	return defaultCollation(c.Meta)
}

// defaultCollation is the collation option of m, or nil.
func defaultCollation(m *catalog.CollMeta) bson.D {
	v, ok := catalog.FieldOf(m.Options, "collation")
	if !ok {
		return nil
	}
	d, _ := v.(bson.D)
	return d
}
