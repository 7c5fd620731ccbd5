package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/events"
)

// The change log's records of catalog changes carry what MongoDB 7's
// expanded events show as operationDescription (and stateBeforeChange for
// modify), written in the same storage batch as the change:
//
//   - create: the collection's options, then its idIndex (none for a
//     clustered collection);
//   - createIndexes: {indexes: [spec, ...]}, the specifications of the
//     indexes one createIndexes built; on a collection the command created,
//     one event per index, as MongoDB builds those in place;
//   - dropIndexes: {indexes: [spec]}, one event per dropped index;
//   - modify: the collMod command's changes, and stateBeforeChange
//     {collectionOptions: the options before, with the UUID first,
//     indexOptions: the changed index's options before, when an index
//     changed};
//   - rename: {to: {db, coll}, dropTarget: UUID of the dropped target}.

// ddlRecord encodes the record of a catalog change op on m.
func ddlRecord(op string, m *catalog.CollMeta, desc, before bson.D) ([]byte, error) {
	uuid := m.UUID
	return events.DDLRecord(events.Record{Op: op, DB: m.DB, Coll: m.Name, UUID: &uuid}, desc, before)
}

// catalogDescription returns the operation description of a create,
// drop, rename or dropDatabase on m (nil for dropDatabase): create's
// options and idIndex; rename's target, and the UUID of the collection
// it replaced when dropped is set.
func catalogDescription(op string, m *catalog.CollMeta, toDB, toColl string, dropped *catalog.CollMeta) bson.D {
	switch op {
	case events.OpCreate:
		d := append(bson.D{}, m.Options...)
		if !m.Clustered() {
			d = append(d, bson.E{Key: "idIndex", Value: catalog.IDIndexSpec()})
		}
		return d
	case events.OpRename:
		d := bson.D{{Key: "to", Value: bson.D{{Key: "db", Value: toDB}, {Key: "coll", Value: toColl}}}}
		if dropped != nil {
			d = append(d, bson.E{Key: "dropTarget", Value: dropped.UUID})
		}
		return d
	}
	return nil
}

// indexRecords returns the records of indexes built on (createIndexes)
// or dropped from (dropIndexes) m: one for all of them when together is
// set, otherwise one each; none without the change log.
func (e *Engine) indexRecords(op string, m *catalog.CollMeta, idx []*catalog.IndexMeta, together bool) ([][]byte, error) {
	if e.events == nil || len(idx) == 0 {
		return nil, nil
	}
	specs := func(ix []*catalog.IndexMeta) bson.D {
		a := make(bson.A, len(ix))
		for i, x := range ix {
			a[i] = x.Spec
		}
		return bson.D{{Key: "indexes", Value: a}}
	}
	if together {
		rec, err := ddlRecord(op, m, specs(idx), nil)
		if err != nil {
			return nil, err
		}
		return [][]byte{rec}, nil
	}
	recs := make([][]byte, 0, len(idx))
	for _, ix := range idx {
		rec, err := ddlRecord(op, m, specs([]*catalog.IndexMeta{ix}), nil)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// modifyRecord returns the record of a collMod req that turned old into
// next (changed holds the changed index, as it is after); none without
// the change log.
func (e *Engine) modifyRecord(old, next *catalog.CollMeta, req CollModRequest, changed []*catalog.IndexMeta) ([][]byte, error) {
	if e.events == nil {
		return nil, nil
	}
	desc := req.Validation.appendTo(bson.D{})
	if x := req.ExpireAfterSeconds; x != nil {
		var val any = x.Seconds
		if x.Off {
			val = "off"
		}
		desc = append(desc, bson.E{Key: "expireAfterSeconds", Value: val})
	}
	if req.PreAndPostImages != nil {
		desc = append(desc, bson.E{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: *req.PreAndPostImages}}})
	}
	if req.CappedSize != nil {
		desc = append(desc, bson.E{Key: "cappedSize", Value: *req.CappedSize})
	}
	if req.CappedMax != nil {
		desc = append(desc, bson.E{Key: "cappedMax", Value: *req.CappedMax})
	}
	before := bson.D{{Key: "collectionOptions", Value: append(bson.D{{Key: "uuid", Value: old.UUID}}, old.Options...)}}
	if ix := req.Index; ix != nil && len(changed) == 1 {
		d := bson.D{{Key: "name", Value: changed[0].Name}}
		if ix.KeyPattern != nil {
			d = append(d, bson.E{Key: "keyPattern", Value: ix.KeyPattern})
		}
		var was bson.D
		prev := old.Index(changed[0].Name)
		if ix.ExpireAfterSeconds != nil {
			d = append(d, bson.E{Key: "expireAfterSeconds", Value: *ix.ExpireAfterSeconds})
			if prev != nil && prev.TTL {
				was = append(was, bson.E{Key: "expireAfterSeconds", Value: prev.ExpireAfter})
			}
		}
		if ix.Hidden != nil {
			d = append(d, bson.E{Key: "hidden", Value: *ix.Hidden})
			if prev != nil {
				was = append(was, bson.E{Key: "hidden", Value: prev.Hidden})
			}
		}
		desc = append(desc, bson.E{Key: "index", Value: d})
		before = append(before, bson.E{Key: "indexOptions", Value: append(bson.D{}, was...)})
	}
	rec, err := ddlRecord(events.OpModify, next, desc, before)
	if err != nil {
		return nil, err
	}
	return [][]byte{rec}, nil
}
