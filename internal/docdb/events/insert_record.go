package events

import (
	"bytes"
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The record of an insert that refers to its stored document is not BSON
// but a few fields one after another, ending in a tag byte no BSON document
// ends in (a BSON document ends in a zero byte):
//
//	[namespace]  uvarint collection id  uvarint n  encoded _id (n bytes)  hash (8 bytes)  tag
//
// where the namespace (uvarint-prefixed db, collection name, and UUID subtype and bytes) is
// there only with tagInsertNamed, by the rule of records that follow one
// of the same collection in their entry (see Record). Its content id is its
// own sequence number, and its document key is the _id of the document it
// shows.
const (
	tagInsert      = 1
	tagInsertNamed = 2
)

// insertHashLen is the length of the hash a compact insert record keeps.
const insertHashLen = 8

// insertHash returns the hash a compact insert record keeps of the
// document's bytes: a reader shows the stored document only when it has
// this hash.
func insertHash(raw []byte) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, insertHashLen), xxhash.Sum64(raw))
}

// isInsertRef reports whether raw is a compact insert record.
func isInsertRef(raw []byte) bool {
	return len(raw) > 0 && raw[len(raw)-1] != 0
}

// appendInsertRef appends the compact record of the insert of document
// idEnc (whose bytes are raw) into collection cid, naming the namespace
// when db is not empty.
func appendInsertRef(out []byte, db, coll string, uuid bson.Binary, cid uint64, idEnc, raw []byte) []byte {
	tag := byte(tagInsert)
	if db != "" {
		tag = tagInsertNamed
		for _, s := range [][]byte{[]byte(db), []byte(coll), append([]byte{uuid.Subtype}, uuid.Data...)} {
			out = binary.AppendUvarint(out, uint64(len(s)))
			out = append(out, s...)
		}
	}
	out = binary.AppendUvarint(out, cid)
	out = binary.AppendUvarint(out, uint64(len(idEnc)))
	out = append(out, idEnc...)
	out = binary.BigEndian.AppendUint64(out, xxhash.Sum64(raw))
	return append(out, tag)
}

// insertRef is a compact insert record decoded; its encoded _id and hash
// point into the record.
type insertRef struct {
	ns    namespace
	named bool
	cid   uint64
	idEnc []byte
	hash  []byte
}

// decodeInsertRef decodes a compact insert record.
func decodeInsertRef(raw []byte) (insertRef, error) {
	var r insertRef
	if len(raw) < 1+insertHashLen {
		return r, errMalformed
	}
	tag, rest := raw[len(raw)-1], raw[:len(raw)-1]
	next := func() ([]byte, bool) {
		n, w := binary.Uvarint(rest)
		if w <= 0 || n > uint64(len(rest)-w) {
			return nil, false
		}
		b := rest[w : w+int(n)]
		rest = rest[w+int(n):]
		return b, true
	}
	switch tag {
	case tagInsert:
	case tagInsertNamed:
		db, ok1 := next()
		coll, ok2 := next()
		uuid, ok3 := next()
		if !ok1 || !ok2 || !ok3 || len(db) == 0 || len(uuid) == 0 {
			return r, errMalformed
		}
		r.named = true
		r.ns = namespace{db: string(db), coll: string(coll), uuid: &bson.Binary{Subtype: uuid[0], Data: append([]byte(nil), uuid[1:]...)}}
	default:
		return r, errMalformed
	}
	cid, w := binary.Uvarint(rest)
	if w <= 0 {
		return r, errMalformed
	}
	rest = rest[w:]
	idEnc, ok := next()
	if !ok || len(rest) != insertHashLen {
		return r, errMalformed
	}
	r.cid, r.idEnc, r.hash = cid, idEnc, rest
	return r, nil
}

// record returns the insert as a Record with sequence number seq: its
// content id is seq.
func (r insertRef) record(seq uint64) Record {
	rec := Record{Op: OpInsert, CollID: r.cid, IDEnc: bytes.Clone(r.idEnc), Hash: bytes.Clone(r.hash), Ref: seq}
	if r.named {
		rec.DB, rec.Coll, rec.UUID = r.ns.db, r.ns.coll, r.ns.uuid
	}
	return rec
}
