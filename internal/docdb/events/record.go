package events

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

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
//
// A record of a document change that follows one of the same collection
// in its batch's entry has no DB, Coll and UUID: it is in the namespace of
// the record before it (Read fills them in). Every other record names its
// namespace.
type Record struct {
	Op   string `bson:"op"`
	DB   string `bson:"db,omitempty"`
	Coll string `bson:"coll,omitempty"`
	// UUID is the collection's UUID.
	UUID *bson.Binary `bson:"uuid,omitempty"`
	// Key is the documentKey ({_id: ...}).
	Key bson.Raw `bson:"key,omitempty"`
	// CollID and IDEnc are the collection's id and the document's encoded
	// _id: where an insert's document is stored.
	CollID uint64 `bson:"cid,omitempty"`
	IDEnc  []byte `bson:"ide,omitempty"`
	// Ref is the id of the record's content entry; zero when the record
	// has no content kept apart.
	Ref uint64 `bson:"ref,omitempty"`
	// Hash is the hash of an insert's document (insertHash, or docHash in
	// records written before inserts had their compact form), when the
	// record refers to the stored document instead of keeping it as
	// content.
	Hash []byte `bson:"hash,omitempty"`
	// Full is the document after the change: always for inserts and
	// replaces, for updates when the collection keeps images. It is read
	// from the content entry (or the inserted document) when Ref is set.
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
	// DDL is what a catalog change's event describes (ddl.go).
	DDL `bson:",inline"`
}

// Expiry is the cause of an expiry deletion: the source ("ttl" or
// "policy"), the index or policy name and the due time.
type Expiry struct {
	Source string        `bson:"source"`
	Name   string        `bson:"name"`
	DueAt  bson.DateTime `bson:"dueAt"`
}

// decodeRecordAt decodes record raw, whose sequence number is seq: a
// compact insert record (insert_record.go) or BSON.
func decodeRecordAt(raw []byte, seq uint64) (Record, error) {
	if isInsertRef(raw) {
		ir, err := decodeInsertRef(raw)
		if err != nil {
			return Record{}, err
		}
		return ir.record(seq), nil
	}
	return DecodeRecord(raw)
}

// DecodeRecord decodes a record's BSON.
func DecodeRecord(raw []byte) (Record, error) {
	var r Record
	if err := bson.Unmarshal(raw, &r); err != nil {
		return Record{}, fmt.Errorf("events: decode record: %w", err)
	}
	return r, nil
}

// Encode returns the record's BSON, as bson.Marshal would give it; the
// common fields are appended directly, since every write encodes one.
func (r *Record) Encode() ([]byte, error) {
	start, out := bsoncore.AppendDocumentStart(make([]byte, 0, 64+len(r.Key)+len(r.Full)+len(r.Pre)))
	out = bsoncore.AppendStringElement(out, "op", r.Op)
	if r.DB != "" {
		out = bsoncore.AppendStringElement(out, "db", r.DB)
	}
	if r.Coll != "" {
		out = bsoncore.AppendStringElement(out, "coll", r.Coll)
	}
	if r.UUID != nil {
		out = bsoncore.AppendBinaryElement(out, "uuid", r.UUID.Subtype, r.UUID.Data)
	}
	if len(r.Key) > 0 {
		out = bsoncore.AppendDocumentElement(out, "key", r.Key)
	}
	if r.CollID != 0 {
		out = bsoncore.AppendInt64Element(out, "cid", int64(r.CollID))
	}
	if len(r.IDEnc) > 0 {
		out = bsoncore.AppendBinaryElement(out, "ide", 0, r.IDEnc)
	}
	if r.Ref != 0 {
		out = bsoncore.AppendInt64Element(out, "ref", int64(r.Ref))
	}
	if len(r.Hash) > 0 {
		out = bsoncore.AppendBinaryElement(out, "hash", 0, r.Hash)
	}
	if len(r.Full) > 0 {
		out = bsoncore.AppendDocumentElement(out, "full", r.Full)
	}
	if len(r.Pre) > 0 {
		out = bsoncore.AppendDocumentElement(out, "pre", r.Pre)
	}
	if r.Update != nil {
		raw, err := bson.Marshal(r.Update)
		if err != nil {
			return nil, fmt.Errorf("events: encode update description: %w", err)
		}
		out = bsoncore.AppendDocumentElement(out, "upd", raw)
	}
	if r.ToDB != "" {
		out = bsoncore.AppendStringElement(out, "toDB", r.ToDB)
	}
	if r.ToColl != "" {
		out = bsoncore.AppendStringElement(out, "toColl", r.ToColl)
	}
	if x := r.Expired; x != nil {
		xs, xo := bsoncore.AppendDocumentStart(nil)
		xo = bsoncore.AppendStringElement(xo, "source", x.Source)
		xo = bsoncore.AppendStringElement(xo, "name", x.Name)
		xo = bsoncore.AppendDateTimeElement(xo, "dueAt", int64(x.DueAt))
		xo, _ = bsoncore.AppendDocumentEnd(xo, xs)
		out = bsoncore.AppendDocumentElement(out, "exp", xo)
	}
	out = r.appendDDL(out)
	out, err := bsoncore.AppendDocumentEnd(out, start)
	if err != nil {
		return nil, fmt.Errorf("events: encode record: %w", err)
	}
	return out, nil
}

// documentKey returns {_id: ...} of a stored document, from its raw
// bytes: the _id is a stored document's first field.
func documentKey(sd *stored.Doc) ([]byte, error) {
	el, err := bson.Raw(sd.Raw).IndexErr(0)
	if err != nil || el.Key() != "_id" {
		return bson.Marshal(bson.D{{Key: "_id", Value: sd.Doc[0].Value}})
	}
	start, out := bsoncore.AppendDocumentStart(make([]byte, 0, len(el)+5))
	out = append(out, el...)
	return bsoncore.AppendDocumentEnd(out, start)
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
// (change.Hook), and keeps the content of changes apart from the records
// (see content.go).
type Hook struct{ log *Log }

// Hook returns the log's write hook.
func (l *Log) Hook() Hook { return Hook{log: l} }

var _ change.Hook = Hook{}

// DocumentChanged implements change.Hook.
func (h Hook) DocumentChanged(b *change.Batch, m *catalog.CollMeta, prev, next *stored.Doc) error {
	named := !b.SameCollection(m)
	if prev == nil && h.log.refs.full(h.log.inserts.keepAt) {
		var ir insertRef
		if named {
			ir.named, ir.ns = true, namespace{db: m.DB, coll: m.Name, uuid: &m.UUID}
		}
		rec, err := h.insertWithContent(b, ir, next)
		if err != nil {
			return err
		}
		b.RecordIn(m, rec)
		return nil
	}
	if prev == nil {
		var db, coll string
		if named {
			db, coll = m.DB, m.Name
		}
		rec := appendInsertRef(make([]byte, 0, 48+len(next.IDEnc)), db, coll, m.UUID, m.ID, next.IDEnc, next.Raw)
		b.RecordRef(m, rec)
		return nil
	}
	cause := b.Cause()
	var r Record
	if named {
		r.DB, r.Coll, r.UUID = m.DB, m.Name, &m.UUID
	}
	images := KeepsImages(m)
	doc := next
	if doc == nil {
		doc = prev
	}
	key, err := documentKey(doc)
	if err != nil {
		return fmt.Errorf("events: document key: %w", err)
	}
	r.Key = key
	if err := h.keepInsertImage(b, m, prev); err != nil {
		return err
	}
	var full, pre bson.Raw
	var upd *UpdateDescription
	switch {
	case next == nil:
		r.Op = OpDelete
		if cause.Expiry != nil {
			x := cause.Expiry
			r.Expired = &Expiry{Source: x.Source, Name: x.Name, DueAt: bson.DateTime(x.DueAt)}
		}
	case cause.Replacement:
		r.Op = OpReplace
		full = next.Raw
	default:
		r.Op = OpUpdate
		upd = Diff(prev.Doc, next.Doc)
		if images {
			full = next.Raw
		}
	}
	if images {
		pre = prev.Raw
	}
	if full != nil || pre != nil || upd != nil {
		c, err := encodeContent(full, pre, upd)
		if err != nil {
			return err
		}
		r.Ref = h.log.reserve()
		if err := b.Set(contentKey(r.Ref), c); err != nil {
			return err
		}
	}
	return h.record(b, m, &r)
}

// keepInsertImage is called for a document of m about to be replaced,
// updated or deleted (prev): when an insert's record still refers to it,
// the document as it is becomes that insert's content. An insert in the
// same storage batch has no sequence number yet: its record is replaced
// by one whose content entry, written into b, is the document.
func (h Hook) keepInsertImage(b *change.Batch, m *catalog.CollMeta, prev *stored.Doc) error {
	var err error
	found := false
	b.Rewrite(func(rec []byte) ([]byte, bool, bool) {
		if !isInsertRef(rec) {
			return nil, false, false
		}
		ir, derr := decodeInsertRef(rec)
		if derr != nil {
			err = derr
			return nil, false, true
		}
		if ir.cid != m.ID || !bytes.Equal(ir.idEnc, prev.IDEnc) {
			return nil, false, false
		}
		found = true
		var repl []byte
		repl, err = h.insertWithContent(b, ir, prev)
		return repl, err == nil, true
	})
	if err != nil || found {
		return err
	}
	return h.log.keepInsertImage(b, m.ID, prev.IDEnc, prev.Raw)
}

// insertWithContent returns the record of an insert of doc that keeps doc
// as its content, written into b: in place of ir, its compact record, when
// doc changes in the same batch, or at once when the log counts as many
// inserts referring to their document as its index holds (refCount).
func (h Hook) insertWithContent(b *change.Batch, ir insertRef, doc *stored.Doc) ([]byte, error) {
	key, err := documentKey(doc)
	if err != nil {
		return nil, fmt.Errorf("events: document key: %w", err)
	}
	r := Record{Op: OpInsert, Key: key, Ref: h.log.reserve()}
	if ir.named {
		r.DB, r.Coll, r.UUID = ir.ns.db, ir.ns.coll, ir.ns.uuid
	}
	c, err := encodeContent(doc.Raw, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := b.Set(contentKey(r.Ref), c); err != nil {
		return nil, err
	}
	return r.Encode()
}

// record adds r, a change of a document of m, to the batch's change-log
// records.
func (h Hook) record(b *change.Batch, m *catalog.CollMeta, r *Record) error {
	raw, err := r.Encode()
	if err != nil {
		return err
	}
	b.RecordIn(m, raw)
	return nil
}
