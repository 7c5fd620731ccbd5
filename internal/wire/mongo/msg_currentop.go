package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// msgCurrentOp answers currentOp (db.currentOp()): {inprog: [...]}, the
// operations in progress (operations.go) that match the command's other
// fields taken as a query filter. $all adds the idle connections and idle
// cursors. $ownOps: true reports the user's own operations only and, under
// access control, needs no inprog privilege, as in MongoDB.
func msgCurrentOp(_ context.Context, c *conn, req *request) (bson.D, error) {
	all, own := false, false
	start, filter := bsoncore.AppendDocumentStart(nil)
	err := fields(req.cmd, func(el bson.RawElement) error {
		switch el.Key() {
		case "$all":
			all = truthy(el.Value())
		case "$ownOps":
			own = truthy(el.Value())
		default:
			filter = append(filter, el...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	filter, _ = bsoncore.AppendDocumentEnd(filter, start)
	var spec bson.D
	if err := bson.Unmarshal(filter, &spec); err != nil {
		return nil, errorf(mongoerr.BadValue, "invalid currentOp filter: %v", err)
	}
	o := currentOpOptions{idleConnections: all, idleCursors: all, ownOnly: own && c.s.opts.Auth, owner: c.userString()}
	docs, err := decodedOps(c.s.currentOps(c.s.now(), o))
	if err != nil {
		return nil, err
	}
	f, err := query.ParseFilter(spec)
	if err != nil {
		return nil, err
	}
	inprog := bson.A{}
	for _, d := range docs {
		r, err := f.Eval(d)
		if err != nil {
			return nil, err
		}
		if r.Matched {
			inprog = append(inprog, d)
		}
	}
	return bson.D{{Key: "inprog", Value: inprog}}, nil
}

// currentOpAccess: inprog on the cluster, except with $ownOps: true.
var currentOpAccess = func() access {
	a := need(onCluster, "inprog")
	a.handlerChecks = func(req *request) bool { return fieldTrue(req.cmd, "$ownOps") }
	return a
}()

// decodedOps turns currentOp documents, which hold raw BSON (the commands,
// the client metadata), into decoded documents that query filters and
// pipelines can read.
func decodedOps(ops []bson.D) ([]bson.D, error) {
	out := make([]bson.D, len(ops))
	for i, op := range ops {
		raw, err := bson.Marshal(op)
		if err != nil {
			return nil, err
		}
		if err := bson.Unmarshal(raw, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// currentOpStage parses the options of a $currentOp stage (the first stage
// of an aggregate: 1 on admin) and returns the pipeline with $currentOp
// replaced by the documents it reports.
func currentOpStage(c *conn, db string, pipeline []bson.D) ([]bson.D, error) {
	if db != "admin" {
		return nil, errorf(mongoerr.InvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	}
	spec, ok := pipeline[0][0].Value.(bson.D)
	if !ok {
		return nil, errorf(mongoerr.FailedToParse, "$currentOp options must be specified in an object, but found: %s", goTypeName(pipeline[0][0].Value))
	}
	var o currentOpOptions
	for _, e := range spec {
		switch e.Key {
		case "allUsers", "idleConnections", "idleCursors", "idleSessions", "localOps", "backtrace", "truncateOps", "targetAllNodes":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, errorf(mongoerr.FailedToParse, "The '%s' parameter of the $currentOp stage must be a boolean value, but found: %s", e.Key, goTypeName(e.Value))
			}
			switch e.Key {
			case "idleConnections":
				o.idleConnections = b
			case "idleCursors":
				o.idleCursors = b
			}
		default:
			return nil, errorf(mongoerr.FailedToParse, "Unrecognized option '%s' in $currentOp stage.", e.Key)
		}
	}
	docs, err := decodedOps(c.s.currentOps(c.s.now(), o))
	if err != nil {
		return nil, err
	}
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = d
	}
	out := append([]bson.D{{{Key: "$documents", Value: bson.D{{Key: "$literal", Value: arr}}}}}, pipeline[1:]...)
	return out, nil
}

// goTypeName is MongoDB's name of the BSON type of a decoded value.
func goTypeName(v any) string {
	t, _, err := bson.MarshalValue(v)
	if err != nil {
		return "unknown"
	}
	return typeName(t)
}
