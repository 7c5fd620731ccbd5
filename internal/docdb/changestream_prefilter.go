package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// A change stream's leading $match is partly applied to a record before
// its event is built: the conditions on operationType, ns (ns.db, ns.coll)
// and expiredBy, which a record states without its content. A record they
// reject gives no event, and its document is never read; one they accept
// is shaped and goes through the whole pipeline, that $match included
// unless they are all of it and it is the whole pipeline. So a stream of
// deletions skips the inserts it drops without reading their documents.

// recordFields are the event fields a record gives without its content.
var recordFields = map[string]bool{
	"operationType": true, "ns": true, "ns.db": true, "ns.coll": true,
	"expiredBy": true, "expiredBy.source": true, "expiredBy.index": true, "expiredBy.policy": true, "expiredBy.dueAt": true,
}

// recordPrefilter returns the conditions of the pipeline's leading $match
// that read only recordFields, or nil when there are none; whole reports
// that they are all of that $match.
func recordPrefilter(pipeline []bson.D) (f *query.Filter, whole bool) {
	if len(pipeline) == 0 || len(pipeline[0]) != 1 || pipeline[0][0].Key != "$match" {
		return nil, false
	}
	match, ok := pipeline[0][0].Value.(bson.D)
	if !ok {
		return nil, false
	}
	var kept bson.D
	for _, e := range match {
		if readsRecordOnly(e) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil, false
	}
	f, err := query.ParseFilter(kept)
	if err != nil {
		return nil, false // the pipeline's own parse reports it
	}
	return f, len(kept) == len(match)
}

// readsRecordOnly reports whether a condition of a filter reads only
// recordFields: a condition on one of them, or $and, $or or $nor of
// filters made of such conditions.
func readsRecordOnly(e bson.E) bool {
	if recordFields[e.Key] {
		return true
	}
	switch e.Key {
	case "$and", "$or", "$nor":
	default:
		return false
	}
	var clauses []any
	switch v := e.Value.(type) {
	case bson.A:
		clauses = v
	case []any:
		clauses = v
	default:
		return false
	}
	if len(clauses) == 0 {
		return false
	}
	for _, c := range clauses {
		d, ok := c.(bson.D)
		if !ok || len(d) == 0 {
			return false
		}
		for _, ce := range d {
			if !readsRecordOnly(ce) {
				return false
			}
		}
	}
	return true
}

// recordSkeleton is the part of a record's event that recordFields name,
// with the values its event holds.
func recordSkeleton(ev events.Event) bson.D {
	ns := bson.D{{Key: "db", Value: ev.DB}}
	if ev.Coll != "" {
		ns = append(ns, bson.E{Key: "coll", Value: ev.Coll})
	}
	d := bson.D{{Key: "operationType", Value: ev.Op}, {Key: "ns", Value: ns}}
	if ev.Op == events.OpDelete && ev.Expired != nil {
		d = append(d, bson.E{Key: "expiredBy", Value: expiredBy(ev.Expired)})
	}
	return d
}
