package events

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// Operation types, as change events name them.
const (
	OpInsert       = "insert"
	OpUpdate       = "update"
	OpReplace      = "replace"
	OpDelete       = "delete"
	OpCreate       = "create"
	OpDrop         = "drop"
	OpRename       = "rename"
	OpDropDatabase = "dropDatabase"
)

// Record is one change as the log keeps it.
type Record struct {
	Op   string `bson:"op"`
	DB   string `bson:"db"`
	Coll string `bson:"coll,omitempty"`
	// UUID is the collection's UUID.
	UUID *bson.Binary `bson:"uuid,omitempty"`
	// Key is the documentKey ({_id: ...}).
	Key bson.Raw `bson:"key,omitempty"`
	// Full is the document after the change: always for inserts and
	// replaces, for updates when the collection keeps images.
	Full bson.Raw `bson:"full,omitempty"`
	// Pre is the document before the change, when the collection keeps
	// images.
	Pre bson.Raw `bson:"pre,omitempty"`
	// Update is the update description of an update.
	Update *UpdateDescription `bson:"upd,omitempty"`
	// ToDB and ToColl are a rename's target.
	ToDB   string `bson:"toDB,omitempty"`
	ToColl string `bson:"toColl,omitempty"`
	// Expired is set on deletions made by the expiry engine.
	Expired *Expiry `bson:"exp,omitempty"`
}

// Expiry is the cause of an expiry deletion: the source ("ttl" or
// "policy"), the index or policy name and the due time.
type Expiry struct {
	Source string        `bson:"source"`
	Name   string        `bson:"name"`
	DueAt  bson.DateTime `bson:"dueAt"`
}

// DecodeRecord decodes a record's BSON.
func DecodeRecord(raw []byte) (Record, error) {
	var r Record
	if err := bson.Unmarshal(raw, &r); err != nil {
		return Record{}, fmt.Errorf("events: decode record: %w", err)
	}
	return r, nil
}

// Encode returns the record's BSON.
func (r *Record) Encode() ([]byte, error) {
	raw, err := bson.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("events: encode record: %w", err)
	}
	return raw, nil
}

// CatalogRecord returns the encoded record of a catalog change: op on
// db.coll (coll empty for dropDatabase), renamed to toDB.toColl for a
// rename.
func CatalogRecord(op, db, coll string, uuid *bson.Binary, toDB, toColl string) ([]byte, error) {
	r := Record{Op: op, DB: db, Coll: coll, UUID: uuid, ToDB: toDB, ToColl: toColl}
	return r.Encode()
}

// KeepsImages reports whether the collection keeps pre- and post-images
// of its changes: its options hold changeStreamPreAndPostImages:
// {enabled: true}.
func KeepsImages(m *catalog.CollMeta) bool {
	for _, o := range m.Options {
		if o.Key != "changeStreamPreAndPostImages" {
			continue
		}
		d, ok := o.Value.(bson.D)
		if !ok {
			return false
		}
		for _, e := range d {
			if e.Key == "enabled" {
				return catalog.Truthy(e.Value)
			}
		}
	}
	return false
}

// Hook writes a record of every document change into the change log
// (change.Hook).
type Hook struct{}

var _ change.Hook = Hook{}

// DocumentChanged implements change.Hook.
func (Hook) DocumentChanged(b *change.Batch, m *catalog.CollMeta, prev, next *stored.Doc) error {
	cause := b.Cause()
	uuid := m.UUID
	r := Record{DB: m.DB, Coll: m.Name, UUID: &uuid}
	images := KeepsImages(m)
	doc := next
	if doc == nil {
		doc = prev
	}
	key, err := bson.Marshal(bson.D{{Key: "_id", Value: doc.Doc[0].Value}})
	if err != nil {
		return fmt.Errorf("events: document key: %w", err)
	}
	r.Key = key
	switch {
	case prev == nil:
		r.Op = OpInsert
		r.Full = next.Raw
	case next == nil:
		r.Op = OpDelete
		if cause.Expiry != nil {
			x := cause.Expiry
			r.Expired = &Expiry{Source: x.Source, Name: x.Name, DueAt: bson.DateTime(x.DueAt)}
		}
	case cause.Replacement:
		r.Op = OpReplace
		r.Full = next.Raw
	default:
		r.Op = OpUpdate
		r.Update = Diff(prev.Doc, next.Doc)
		if images {
			r.Full = next.Raw
		}
	}
	if images && prev != nil {
		r.Pre = prev.Raw
	}
	raw, err := r.Encode()
	if err != nil {
		return err
	}
	b.Record(raw)
	return nil
}
