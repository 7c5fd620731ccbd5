package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
)

// msgInsert answers insert. The documents usually come as an OP_MSG
// document sequence, already merged into the command as an array. The
// reply is {n, writeErrors?}: per-document failures are write errors, not
// a failed command.
func msgInsert(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	wc, err := parseWriteCommand("insert", "documents", false, req.cmd)
	if err != nil {
		return nil, err
	}
	ir := docdb.InsertRequest{Documents: wc.stmts, Ordered: wc.ordered, BypassDocumentValidation: wc.bypass}
	ir.Retryable = req.retryable(func(r any) bson.D { return insertReply(r.(docdb.InsertResult)) })
	c.s.metrics.opInsert.Add(int64(len(ir.Documents)))
	res, err := c.s.db.Insert(ctx, req.db, coll, ir)
	if err != nil {
		return nil, err
	}
	c.s.metrics.docInserted.Add(res.N)
	return insertReply(res), nil
}

// insertReply is insert's reply to res.
func insertReply(res docdb.InsertResult) bson.D {
	out := bson.D{{Key: "n", Value: countValue(res.N)}}
	if len(res.WriteErrors) > 0 {
		out = append(out, bson.E{Key: "writeErrors", Value: writeErrorsDoc(res.WriteErrors)})
	}
	return out
}
