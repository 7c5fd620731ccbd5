package docdb

import (
	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// typeName returns MongoDB's name of v's BSON type ("double", "string",
// "object", ...).
func typeName(v any) string { return aggregate.TypeName(v) }

// genericFields are command fields every command may carry; catalog
// commands ignore them.
var genericFields = map[string]bool{
	"writeConcern": true, "comment": true, "lsid": true, "$db": true, "txnNumber": true,
	"$clusterTime": true, "$readPreference": true, "apiVersion": true, "apiStrict": true,
	"apiDeprecationErrors": true, "maxTimeMS": true, "readConcern": true, "autocommit": true,
	"startTransaction": true, "$audit": true, "$client": true, "$configServerState": true,
	"mayBypassWriteBlocking": true, "$readPreferenceMode": true,
}
