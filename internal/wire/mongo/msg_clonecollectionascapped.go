package mongo

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgCloneCollectionAsCapped answers {cloneCollectionAsCapped: from,
// toCollection: to, size}.
func msgCloneCollectionAsCapped(ctx context.Context, c *conn, req *request) (bson.D, error) {
	cmd, err := decodeD(req.cmd)
	if err != nil {
		return nil, err
	}
	from, ok := cmd[0].Value.(string)
	if !ok {
		return nil, errorf(mongoerr.TypeMismatch, "'cloneCollectionAsCapped' must be of type String")
	}
	to, ok := "", false
	var size float64
	for _, el := range cmd[1:] {
		switch el.Key {
		case "toCollection":
			to, ok = el.Value.(string)
		case "size":
			size, _ = catalog.ToFloat(el.Value)
		}
	}
	if !ok {
		return nil, errorf(mongoerr.TypeMismatch, "'toCollection' must be of type String")
	}
	if from == "" {
		return nil, errorf(mongoerr.InvalidNamespace, "Invalid source collection name: %s", from)
	}
	if to == "" {
		return nil, errorf(mongoerr.InvalidNamespace, "Invalid target collection name: %s", to)
	}
	if size == 0 || math.IsNaN(size) {
		return nil, errorf(mongoerr.BadValue, "invalid command spec")
	}
	n := safeInt64(size)
	if n < 1 {
		return nil, errorf(mongoerr.Location51024, "BSON field 'size' value must be >= 1, actual value '%d'", n)
	}
	if err := c.s.db.CloneCollectionAsCapped(ctx, req.db, from, to, n); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
