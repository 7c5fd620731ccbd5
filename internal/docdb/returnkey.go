package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// keyOutput is a find result under returnKey or showRecordId. With
// returnKey the document is replaced by its key in the index the query
// scanned (a document of the index's fields, the first value of an array
// field, null for a missing one), or {} for a collection scan, and nothing
// else. Without returnKey, showRecordId adds $recordId, the document's record id: documents are stored clustered
// by _id, so it is the key of its _id in that order, as BinData (the form a
// MongoDB clustered collection reports). doc is the document as it would
// be returned otherwise (projected).
func keyOutput(q *findQuery, sd *stored.Doc, doc bson.D, index *catalog.IndexMeta) bson.D {
	out := doc
	if q.returnKey {
		out = bson.D{}
		if index != nil {
			for _, f := range index.Key {
				var v any
				query.Walk(sd.Doc, query.SplitPath(f.Key), query.WholeLeafArrays, func(c query.Candidate) bool {
					if c.Missing {
						return true
					}
					if arr, ok := query.AsArray(c.Value); ok {
						if len(arr) == 0 {
							return true
						}
						v = arr[0]
						return false
					}
					v = c.Value
					return false
				})
				out = append(out, bson.E{Key: f.Key, Value: v})
			}
		}
	}
	if q.showRecordID && !q.returnKey {
		out = append(out, bson.E{Key: "$recordId", Value: bson.Binary{Subtype: bson.TypeBinaryGeneric, Data: sd.IDEnc}})
	}
	return out
}
