package events

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The expanded catalog events, which MongoDB 7 shows only to streams
// opened with showExpandedEvents: true.
const (
	OpCreateIndexes = "createIndexes"
	OpDropIndexes   = "dropIndexes"
	OpModify        = "modify"
)

// Expanded reports whether op is an event that a stream shows only with
// showExpandedEvents: create, createIndexes, dropIndexes and modify.
func Expanded(op string) bool {
	switch op {
	case OpCreate, OpCreateIndexes, OpDropIndexes, OpModify:
		return true
	}
	return false
}

// DDL is what a record of a catalog change keeps of the change beyond its
// namespace: the event's operationDescription (the collection's options
// for create, the index specifications for createIndexes and dropIndexes,
// the change for modify, the target for rename) and, for modify, the
// stateBeforeChange. It is inlined in Record, so a record without it is
// encoded as before.
type DDL struct {
	Desc   bson.Raw `bson:"desc,omitempty"`
	Before bson.Raw `bson:"before,omitempty"`
}

// appendDDL appends the DDL fields of r to a record being encoded.
func (r *Record) appendDDL(out []byte) []byte {
	if len(r.Desc) > 0 {
		out = bsoncore.AppendDocumentElement(out, "desc", r.Desc)
	}
	if len(r.Before) > 0 {
		out = bsoncore.AppendDocumentElement(out, "before", r.Before)
	}
	return out
}

// DDLRecord returns the encoded record r of a catalog change (its op,
// namespace, UUID and rename target set) with its operation description
// desc and, for modify, the state before the change (nil when there is
// none).
func DDLRecord(r Record, desc, before bson.D) ([]byte, error) {
	var err error
	if desc != nil {
		if r.Desc, err = bson.Marshal(desc); err != nil {
			return nil, fmt.Errorf("events: encode operation description: %w", err)
		}
	}
	if before != nil {
		if r.Before, err = bson.Marshal(before); err != nil {
			return nil, fmt.Errorf("events: encode state before change: %w", err)
		}
	}
	return r.Encode()
}
