package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// A collection created with a collation (create's collation option) uses
// it as the default of every command on it that gives none: queries,
// updates, deletes, findAndModify, count, distinct, aggregate, and the
// indexes created without one (IndexSpec.request). A command's own
// collation, {locale: "simple"} included, replaces the default.

// collationOr returns spec, or the default collation of db.coll when spec
// is empty (nil when the collection has none or does not exist).
func (e *Engine) collationOr(db, coll string, spec bson.D) bson.D {
	if len(spec) > 0 {
		return spec
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	c := e.cat.Lookup(db, coll)
	if c == nil {
		return nil
	}
	v, ok := catalog.FieldOf(c.Meta.Options, "collation")
	if !ok {
		return nil
	}
	d, _ := v.(bson.D)
	return d
}
