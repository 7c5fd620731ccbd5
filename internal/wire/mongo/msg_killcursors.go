package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgKillCursors answers killCursors: {cursorsKilled, cursorsNotFound,
// cursorsAlive, cursorsUnknown}.
func msgKillCursors(_ context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	var ids []int64
	have := false
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "cursors":
			have = true
			v := el.Value()
			arr, ok := v.ArrayOK()
			if !ok {
				return typeMismatch("killCursors", "cursors", v.Type, "array")
			}
			vals, err := arr.Values()
			if err != nil {
				return errorf(mongoerr.InvalidBSON, "invalid cursors array: %v", err)
			}
			for i, x := range vals {
				if x.Type != bson.TypeInt64 {
					return typeMismatch("killCursors", "cursors."+itoa(i), x.Type, "long")
				}
				ids = append(ids, x.Int64())
			}
			return nil
		default:
			return unknownField("killCursors", k)
		}
	})
	if err != nil {
		return nil, err
	}
	if !have {
		return nil, missingField("killCursors", "cursors")
	}
	ns := namespace(req.db, coll)
	killed, notFound := bson.A{}, bson.A{}
	for _, id := range ids {
		if c.s.cursors.kill(id, ns) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{
		{Key: "cursorsKilled", Value: killed},
		{Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}},
		{Key: "cursorsUnknown", Value: bson.A{}},
	}, nil
}
