package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// parseDelete parses a delete command document (also the inner command of
// explain).
func parseDelete(db string, cmd bson.Raw) (string, docdb.DeleteRequest, error) {
	var dr docdb.DeleteRequest
	coll, err := commandCollection(db, cmd)
	if err != nil {
		return "", dr, err
	}
	// bypassDocumentValidation is accepted (a delete validates nothing).
	wc, err := parseWriteCommand("delete", "deletes", true, cmd)
	if err != nil {
		return "", dr, err
	}
	dr.Ordered, dr.Let = wc.ordered, wc.let
	stmts := wc.stmts
	dr.Statements = make([]docdb.DeleteStatement, len(stmts))
	for i, s := range stmts {
		st, err := parseDeleteStatement(s)
		if err != nil {
			return "", dr, err
		}
		dr.Statements[i] = st
	}
	return coll, dr, nil
}

// parseDeleteStatement parses one {q, limit, hint, collation} statement.
func parseDeleteStatement(s bson.Raw) (docdb.DeleteStatement, error) {
	const ctx = "delete.deletes"
	var st docdb.DeleteStatement
	haveQ, haveLimit := false, false
	elems, err := s.Elements()
	if err != nil {
		return st, errorf(mongoerr.InvalidBSON, "invalid delete statement: %v", err)
	}
	for _, el := range elems {
		switch k := el.Key(); k {
		case "q":
			haveQ = true
			st.Filter, err = docArg(ctx, el)
		case "limit":
			haveLimit = true
			var n int64
			n, err = int64Arg(ctx, el)
			if err == nil && n != 0 && n != 1 {
				err = errorf(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", n)
			}
			st.Limit = int(n)
		case "hint":
			st.Hint, err = hintArg(ctx, el)
		case "collation":
			st.Collation, err = collationArg(ctx, el)
		case "sampleId":
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
	if !haveLimit {
		return st, missingField(ctx, "limit")
	}
	return st, nil
}

// msgDelete answers delete: {n, writeErrors?}.
func msgDelete(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, dr, err := parseDelete(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	c.s.metrics.opDelete.Add(int64(len(dr.Statements)))
	res, err := c.s.db.Delete(ctx, req.db, coll, dr)
	if err != nil {
		return nil, err
	}
	c.s.metrics.docDeleted.Add(res.N)
	out := bson.D{{Key: "n", Value: countValue(res.N)}}
	if len(res.WriteErrors) > 0 {
		out = append(out, bson.E{Key: "writeErrors", Value: writeErrorsDoc(res.WriteErrors)})
	}
	return out, nil
}
