package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// maxStorageDepth is the deepest nesting a stored document may have, as
// MongoDB's BSONDepth::getMaxDepthForUserStorage at the default maxBSONDepth:
// 200 levels less the 20 MongoDB keeps for the documents it builds around
// stored ones. The top-level document is level 1; each non-empty embedded
// document or array adds a level, and an empty one does not count.
const maxStorageDepth = 180

// checkInsertDepth refuses a document to insert that nests deeper than
// maxStorageDepth, with the error of mongod's fixDocumentForInsert.
func checkInsertDepth(raw bson.Raw) error {
	if tooDeep(raw, 1) {
		return mongoerr.Newf(mongoerr.Overflow, "cannot insert document because it exceeds %d levels of nesting", maxStorageDepth)
	}
	return nil
}

// checkUpdateDepth refuses the result of an update, a replacement or an
// upsert that nests deeper than maxStorageDepth, with the error of mongod's
// storage validation of updated documents.
func checkUpdateDepth(raw bson.Raw) error {
	if tooDeep(raw, 1) {
		return mongoerr.Newf(mongoerr.Overflow, "Document exceeds maximum nesting depth of %d", maxStorageDepth)
	}
	return nil
}

// tooDeep reports whether the document doc, at the given level, holds a
// non-empty document or array past maxStorageDepth. doc has been validated.
func tooDeep(doc []byte, level int) bool {
	n, _, ok := bsoncore.ReadLength(doc)
	if !ok || n < 5 || int(n) > len(doc) {
		return false
	}
	body := doc[4 : n-1]
	for len(body) > 0 {
		el, rest, ok := bsoncore.ReadElement(body)
		if !ok {
			return false
		}
		body = rest
		if t := bsoncore.Type(el[0]); t != bsoncore.TypeEmbeddedDocument && t != bsoncore.TypeArray {
			continue
		}
		sub := el.Value().Data
		if len(sub) <= 5 {
			continue // empty
		}
		if level == maxStorageDepth || tooDeep(sub, level+1) {
			return true
		}
	}
	return false
}
