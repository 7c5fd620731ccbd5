package mongo

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// aggregateCommand is a parsed aggregate.
type aggregateCommand struct {
	coll      string
	req       docdb.AggregateRequest
	batchSize int64
	explain   bool
	// collectionless is aggregate: 1, a pipeline on the database.
	collectionless bool
}

// collectionlessStage reports whether pipeline starts with a stage that
// runs without a collection ({aggregate: 1}).
func collectionlessStage(pipeline []bson.D) bool {
	if len(pipeline) == 0 || len(pipeline[0]) == 0 {
		return false
	}
	switch pipeline[0][0].Key {
	case "$changeStream", "$documents", "$currentOp", "$listLocalSessions":
		return true
	}
	return false
}

// parseAggregate parses an aggregate command document (also the inner
// command of explain).
func parseAggregate(db string, cmd bson.Raw) (*aggregateCommand, error) {
	a := &aggregateCommand{batchSize: defaultBatchSize}
	first := cmd.Index(0).Value()
	switch first.Type {
	case bson.TypeString:
		a.coll = first.StringValue()
		if a.coll == "" {
			return nil, errorf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.'", db)
		}
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble:
		if n, ok := first.AsFloat64OK(); !ok || n != 1 {
			return nil, errorf(mongoerr.FailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
		}
		a.collectionless = true
	default:
		return nil, errorf(mongoerr.FailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
	}
	havePipeline, haveCursor := false, false
	err := fields(cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "pipeline":
			havePipeline = true
			a.req.Pipeline, err = docsArg("aggregate", el)
		case "cursor":
			haveCursor = true
			v := el.Value()
			doc, ok := v.DocumentOK()
			if !ok {
				return typeMismatch("aggregate", "cursor", v.Type, "object")
			}
			elems, err := doc.Elements()
			if err != nil {
				return errorf(mongoerr.InvalidBSON, "invalid cursor option: %v", err)
			}
			for _, el := range elems {
				if el.Key() != "batchSize" {
					return unknownField("aggregate.cursor", el.Key())
				}
				n, err := int64Arg("aggregate.cursor", el)
				if err != nil {
					return err
				}
				if err := nonNegative("batchSize", n); err != nil {
					return err
				}
				a.batchSize = n
			}
			return nil
		case "explain":
			a.explain, err = boolArg("aggregate", el)
		case "hint":
			a.req.Hint, err = hintArg("aggregate", el)
		case "let":
			a.req.Let, err = optDocArg("aggregate", el)
		case "bypassDocumentValidation":
			a.req.BypassDocumentValidation, err = boolArg("aggregate", el)
		case "collation":
			a.req.Collation, err = collationArg("aggregate", el)
		case "allowDiskUse":
			var b bool
			b, err = boolArg("aggregate", el)
			a.req.AllowDiskUse = &b
		case "fromMongos", "needsMerge", "mirrored", "sampleId", "isMapReduceCommand":
		default:
			err = unknownField("aggregate", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !havePipeline {
		return nil, missingField("aggregate", "pipeline")
	}
	if a.collectionless && !collectionlessStage(a.req.Pipeline) {
		return nil, notSupported("aggregate", "aggregate: 1 (a pipeline on the database rather than a collection)")
	}
	if !haveCursor && !a.explain {
		return nil, errorf(mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	return a, nil
}

// msgAggregate answers aggregate with a cursor. A pipeline that starts
// with $collStats is answered here from the collection's statistics.
func msgAggregate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	a, err := parseAggregate(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	if a.explain {
		plan, err := c.s.db.ExplainAggregate(ctx, req.db, a.coll, a.req, docdb.QueryPlanner)
		if err != nil {
			return nil, err
		}
		return explainReply(c, plan, req.cmd), nil
	}
	ns := namespace(req.db, a.coll)
	if a.collectionless {
		ns = namespace(req.db, "$cmd.aggregate")
	}
	for i, st := range a.req.Pipeline {
		if len(st) == 1 && st[0].Key == "$changeStream" {
			if i > 0 {
				return nil, errorf(mongoerr.Location40602, "$changeStream is only valid as the first stage in a pipeline")
			}
			return msgChangeStream(ctx, c, req, a, ns)
		}
	}
	var src docdb.Cursor
	if a.collectionless && a.req.Pipeline[0][0].Key == "$currentOp" {
		if a.req.Pipeline, err = currentOpStage(c, req.db, a.req.Pipeline); err != nil {
			return nil, err
		}
	}
	if a.collectionless && a.req.Pipeline[0][0].Key == "$listLocalSessions" {
		if a.req.Pipeline, err = listLocalSessionsStage(c, req, a.req.Pipeline); err != nil {
			return nil, err
		}
	}
	if len(a.req.Pipeline) > 0 && len(a.req.Pipeline[0]) > 0 && a.req.Pipeline[0][0].Key == "$collStats" {
		doc, err := collStatsStage(ctx, c, req.db, a.coll, a.req.Pipeline)
		if err != nil {
			return nil, err
		}
		src = &sliceCursor{docs: []bson.Raw{doc}}
	} else {
		src, err = c.s.db.Aggregate(ctx, req.db, a.coll, a.req)
		var execErr *docdb.ExecError
		if errors.As(err, &execErr) {
			return nil, executorError(aggregateExecutorContext, err)
		}
		if err != nil {
			return nil, err
		}
	}
	return c.firstBatch(ctx, req, src, ns, a.batchSize, false, false, aggregateExecutorContext)
}
