package docdb

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// CollectionExistsError is create's answer for a collection that exists
// with options other than the ones asked for. A create that asks for the
// options the collection has succeeds, as in MongoDB 7.0; the wire layer
// words this one as MongoDB's NamespaceExists (48), naming the existing
// collection's UUID and options.
type CollectionExistsError struct {
	DB, Coll string
	UUID     bson.Binary
	Options  bson.D
}

func (e *CollectionExistsError) Error() string {
	return fmt.Sprintf("docdb: collection %s.%s exists with other options", e.DB, e.Coll)
}
