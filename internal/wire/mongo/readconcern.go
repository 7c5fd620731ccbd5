package mongo

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// checkReadConcern refuses the read concerns a standalone server cannot
// serve: level "snapshot" needs a replica set member, as MongoDB answers
// on a standalone. The other levels read the latest committed data.
func checkReadConcern(v bson.RawValue) error {
	doc, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	if level, ok := doc.Lookup("level").StringValueOK(); ok && level == "snapshot" {
		return errorf(mongoerr.NotAReplicaSet, "node needs to be a replica set member to use readConcern: snapshot")
	}
	return nil
}
