package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
)

// msgCollStats answers collStats: {ns, size, count, ..., indexSizes,
// scaleFactor}.
func msgCollStats(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	scale := int64(1)
	err = fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "scale":
			scale, err = scaleArg("collStats", el)
		case "verbose", "waitForLock", "numericOnly":
		default:
			err = unknownField("collStats", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	st, err := c.s.db.CollStats(ctx, req.db, coll)
	if err != nil {
		return nil, err
	}
	out := append(bson.D{{Key: "ns", Value: namespace(req.db, coll)}}, storageStatsDoc(st, scale)...)
	if st.Timeseries != nil {
		out = append(out, bson.E{Key: "timeseries", Value: timeseriesStatsDoc(st.Timeseries)})
	}
	return out, nil
}

// timeseriesStatsDoc is collStats' timeseries section of a time-series
// collection.
func timeseriesStatsDoc(ts *docdb.TimeseriesStats) bson.D {
	return bson.D{
		{Key: "bucketsNs", Value: ts.BucketsNs},
		{Key: "bucketCount", Value: ts.BucketCount},
		{Key: "avgBucketSize", Value: ts.AvgBucketSize},
	}
}
