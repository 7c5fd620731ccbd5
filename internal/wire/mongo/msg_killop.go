package mongo

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgKillOp answers killOp {op: opid}: the operation is interrupted
// (operations.go) and fails with Interrupted. As in MongoDB the reply is
// the same whether or not the operation still runs.
func msgKillOp(_ context.Context, c *conn, req *request) (bson.D, error) {
	v, err := req.cmd.LookupErr("op")
	if err != nil {
		return nil, errorf(mongoerr.NoSuchKey, "Missing expected field \"op\"")
	}
	if !isNumber(v.Type) {
		return nil, errorf(mongoerr.TypeMismatch, "Expected field \"op\" to have numeric type, but found %s", typeName(v.Type))
	}
	var id int64
	switch v.Type {
	case bson.TypeInt32:
		id = int64(v.Int32())
	case bson.TypeInt64:
		id = v.Int64()
	default:
		f, _ := numberAsFloat(v)
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return nil, errorf(mongoerr.BadValue, "Expected field \"op\" to have a value exactly representable as a 64-bit integer, but found op: %v", f)
		}
		id = int64(f)
	}
	c.log.Info("Going to kill op", "opId", id)
	c.s.ops.kill(id)
	return bson.D{{Key: "info", Value: "attempting to kill op"}}, nil
}
