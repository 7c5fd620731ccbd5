package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/events"
)

// catalogFields appends to d, the event of a catalog change record ev, its
// operationDescription (only with showExpandedEvents, and only when the
// record has one: drop and dropDatabase have none) and a modify's
// stateBeforeChange.
func (cs *ChangeStream) catalogFields(d bson.D, ev events.Event) bson.D {
	if cs.req.ShowExpandedEvents && len(ev.Desc) > 0 {
		d = append(d, bson.E{Key: "operationDescription", Value: ev.Desc})
	}
	if ev.Op == events.OpModify && len(ev.Before) > 0 {
		d = append(d, bson.E{Key: "stateBeforeChange", Value: ev.Before})
	}
	return d
}
