package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgDBStats answers dbStats: the database's collection, object and size
// totals, sizes divided by scale.
func msgDBStats(ctx context.Context, c *conn, req *request) (bson.D, error) {
	scale := int64(1)
	freeStorage := false
	err := fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "scale":
			f, ok := numberAsFloat(el.Value())
			if !ok || !(f > 0) {
				return errorf(mongoerr.BadValue, "scale has to be a number > 0")
			}
			scale = int64(f)
			if scale < 1 {
				scale = 1
			}
		case "freeStorage":
			freeStorage = truthy(el.Value())
		default:
			return unknownField("dbStats", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st, err := c.s.db.DBStats(ctx, req.db)
	if err != nil {
		return nil, err
	}
	avg := 0.0
	if st.Objects > 0 {
		avg = float64(st.DataSize) / float64(st.Objects)
	}
	out := bson.D{
		{Key: "db", Value: req.db},
		{Key: "collections", Value: st.Collections},
		{Key: "views", Value: int64(0)},
		{Key: "objects", Value: st.Objects},
		{Key: "avgObjSize", Value: avg},
		{Key: "dataSize", Value: float64(st.DataSize / scale)},
		{Key: "storageSize", Value: float64(st.StorageSize / scale)},
	}
	// The storage engine writes new files rather than reusing space in old
	// ones (compactions reclaim what deletions free), so no file holds
	// free space to report.
	if freeStorage {
		out = append(out, bson.E{Key: "freeStorageSize", Value: float64(0)})
	}
	out = append(out,
		bson.E{Key: "indexes", Value: st.Indexes},
		bson.E{Key: "indexSize", Value: float64(st.IndexSize / scale)})
	if freeStorage {
		out = append(out, bson.E{Key: "indexFreeStorageSize", Value: float64(0)})
	}
	out = append(out, bson.E{Key: "totalSize", Value: float64(st.TotalSize / scale)})
	if freeStorage {
		out = append(out, bson.E{Key: "totalFreeStorageSize", Value: float64(0)})
	}
	out = append(out, bson.E{Key: "scaleFactor", Value: scale})
	if c.s.opts.DBPath != "" {
		used, total, err := fileSystemSpace(c.s.opts.DBPath)
		if err != nil {
			return nil, fmt.Errorf("dbStats: %w", err)
		}
		out = append(out,
			bson.E{Key: "fsUsedSize", Value: float64(used / scale)},
			bson.E{Key: "fsTotalSize", Value: float64(total / scale)})
	}
	return out, nil
}
