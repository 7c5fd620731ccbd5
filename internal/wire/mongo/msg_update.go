package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// parseUpdate parses an update command document (also the inner command
// of explain).
func parseUpdate(db string, cmd bson.Raw) (string, docdb.UpdateRequest, error) {
	var ur docdb.UpdateRequest
	coll, err := commandCollection(db, cmd)
	if err != nil {
		return "", ur, err
	}
	wc, err := parseWriteCommand("update", "updates", true, cmd)
	if err != nil {
		return "", ur, err
	}
	ur.Ordered, ur.BypassDocumentValidation, ur.Let = wc.ordered, wc.bypass, wc.let
	stmts := wc.stmts
	ur.Statements = make([]docdb.UpdateStatement, len(stmts))
	for i, s := range stmts {
		st, err := parseUpdateStatement(s)
		if err != nil {
			return "", ur, err
		}
		ur.Statements[i] = st
	}
	return coll, ur, nil
}

// parseUpdateStatement parses one {q, u, upsert, multi, arrayFilters,
// hint, collation} statement.
func parseUpdateStatement(s bson.Raw) (docdb.UpdateStatement, error) {
	const ctx = "update.updates"
	var st docdb.UpdateStatement
	haveQ, haveU := false, false
	elems, err := s.Elements()
	if err != nil {
		return st, errorf(mongoerr.InvalidBSON, "invalid update statement: %v", err)
	}
	for _, el := range elems {
		switch k := el.Key(); k {
		case "q":
			haveQ = true
			st.Filter, err = docArg(ctx, el)
		case "u":
			haveU = true
			v := el.Value()
			switch v.Type {
			case bson.TypeEmbeddedDocument:
				st.Update, err = decodeD(v.Document())
			case bson.TypeArray:
				st.Pipeline, err = docsArg(ctx, el)
				if err == nil {
					err = knownStages(st.Pipeline)
				}
			default:
				err = typeMismatch(ctx, "u", v.Type, "[object, array]'")
			}
		case "upsert":
			st.Upsert, err = boolArg(ctx, el)
		case "multi":
			st.Multi, err = boolArg(ctx, el)
		case "arrayFilters":
			st.ArrayFilters, err = docsArg(ctx, el)
		case "hint":
			st.Hint, err = hintArg(ctx, el)
		case "collation":
			st.Collation, err = collationArg(ctx, el)
		case "upsertSupplied", "sampleId", "$_allowShardKeyUpdatesWithoutFullShardKeyInQuery", "sort":
			if k == "sort" && truthy(el.Value()) {
				err = notSupported(ctx, k)
			}
		case "c":
			if truthy(el.Value()) {
				err = notSupported(ctx, k)
			}
		default:
			err = unknownField(ctx, k)
		}
		if err != nil {
			return st, err
		}
	}
	if !haveQ {
		return st, missingField(ctx, "q")
	}
	if !haveU {
		return st, missingField(ctx, "u")
	}
	return st, nil
}

// msgUpdate answers update: {n, nModified, upserted?, writeErrors?}.
func msgUpdate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, ur, err := parseUpdate(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	c.s.metrics.opUpdate.Add(int64(len(ur.Statements)))
	res, err := c.s.db.Update(ctx, req.db, coll, ur)
	if err != nil {
		return nil, err
	}
	c.s.metrics.docUpdated.Add(res.NModified)
	c.s.metrics.docInserted.Add(int64(len(res.Upserted)))
	out := bson.D{{Key: "n", Value: countValue(res.N)}}
	if len(res.Upserted) > 0 {
		arr := make(bson.A, len(res.Upserted))
		for i, u := range res.Upserted {
			arr[i] = bson.D{{Key: "index", Value: int32(u.Index)}, {Key: "_id", Value: u.ID}}
		}
		out = append(out, bson.E{Key: "upserted", Value: arr})
	}
	out = append(out, bson.E{Key: "nModified", Value: countValue(res.NModified)})
	if len(res.WriteErrors) > 0 {
		out = append(out, bson.E{Key: "writeErrors", Value: writeErrorsDoc(res.WriteErrors)})
	}
	return out, nil
}

// knownStages refuses, for the whole command as MongoDB does when it parses
// an update's pipeline, a stage whose name is no aggregation stage. Which
// known stages an update may use is checked per statement.
func knownStages(pipeline []bson.D) error {
	for _, st := range pipeline {
		if len(st) == 1 && !aggregate.IsStage(st[0].Key) {
			return errorf(mongoerr.Location40324, "Unrecognized pipeline stage name: '%s'", st[0].Key)
		}
	}
	return nil
}
