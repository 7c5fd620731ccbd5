package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// DecodeDocument decodes a BSON document into a bson.D exactly as
// bson.Unmarshal into a bson.D does: nested documents as bson.D, arrays as
// bson.A, every value keeping its BSON type. The common types are decoded
// without the driver's reflection-based codecs (DecodeDoc); a document
// holding a rare type, or a malformed one, goes through bson.Unmarshal,
// whose error is returned.
func DecodeDocument(raw bson.Raw) (bson.D, error) {
	if d, ok := stored.DecodeDoc(raw); ok {
		return d, nil
	}
	var d bson.D
	if err := bson.Unmarshal(raw, &d); err != nil {
		return nil, err
	}
	return d, nil
}
