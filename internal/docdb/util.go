package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// typeName returns MongoDB's name of v's BSON type ("double", "string",
// "object", ...).
func typeName(v any) string { return aggregate.TypeName(v) }

// isNumber reports whether v is a BSON number.
func isNumber(v any) bool {
	switch v.(type) {
	case int32, int64, int, float64, bson.Decimal128:
		return true
	}
	return false
}

// genericFields are command fields every command may carry; catalog
// commands ignore them.
var genericFields = map[string]bool{
	"writeConcern": true, "comment": true, "lsid": true, "$db": true, "txnNumber": true,
	"$clusterTime": true, "$readPreference": true, "apiVersion": true, "apiStrict": true,
	"apiDeprecationErrors": true, "maxTimeMS": true, "readConcern": true, "autocommit": true,
	"startTransaction": true, "$audit": true, "$client": true, "$configServerState": true,
	"mayBypassWriteBlocking": true, "$readPreferenceMode": true,
}
