package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// apiVersion1Commands are the commands of the Stable API's version 1, the
// only ones served to a request with apiStrict: true.
var apiVersion1Commands = map[string]bool{
	"abortTransaction": true, "aggregate": true, "authenticate": true, "collMod": true,
	"commitTransaction": true, "count": true, "create": true, "createIndexes": true,
	"delete": true, "drop": true, "dropDatabase": true, "dropIndexes": true,
	"endSessions": true, "find": true, "findAndModify": true, "getMore": true,
	"hello": true, "insert": true, "killCursors": true, "listCollections": true,
	"listDatabases": true, "listIndexes": true, "ping": true, "refreshSessions": true,
	"saslContinue": true, "saslStart": true, "update": true,
}

// apiStrictStages are the aggregation stages outside the Stable API's
// version 1.
var apiStrictStages = map[string]bool{
	"$currentOp": true, "$listLocalSessions": true, "$listSessions": true,
	"$indexStats": true, "$planCacheStats": true, "$listCatalog": true,
}

// checkAPIStrict refuses, with APIStrictError, a request sent with
// apiStrict: true for a command, or an aggregate stage, outside version 1
// of the Stable API.
func checkAPIStrict(req *request) error {
	v, err := req.cmd.LookupErr("apiStrict")
	if err != nil || !truthy(v) {
		return nil
	}
	if !apiVersion1Commands[req.name] {
		return errorf(mongoerr.APIStrictError, "Provided apiStrict:true, but the command %s is not in API Version 1. Information on supported commands and migrations in API Version 1 can be found at https://dochub.mongodb.org/core/manual-versioning", req.name)
	}
	if req.name != "aggregate" {
		return nil
	}
	arr, ok := req.cmd.Lookup("pipeline").ArrayOK()
	if !ok {
		return nil
	}
	stages, _ := arr.Values()
	for _, st := range stages {
		d, ok := st.DocumentOK()
		if !ok {
			continue
		}
		if first, err := d.IndexErr(0); err == nil && apiStrictStages[first.Key()] {
			return errorf(mongoerr.APIStrictError, "%s is not allowed with 'apiStrict: true' in API Version 1", first.Key())
		}
	}
	return nil
}

// msgTestVersion2 answers testVersion2, MongoDB's test command that exists
// only in version 2 of the Stable API: it does nothing.
func msgTestVersion2(_ context.Context, _ *conn, _ *request) (bson.D, error) {
	return bson.D{}, nil
}
