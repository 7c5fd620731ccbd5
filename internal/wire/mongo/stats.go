package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// storageStatsDoc is the body of collStats and of $collStats'
// storageStats, sizes divided by scale.
func storageStatsDoc(st docdb.CollStats, scale int64) bson.D {
	sizes := make(bson.D, len(st.IndexSizes))
	for i, s := range st.IndexSizes {
		sizes[i] = bson.E{Key: s.Name, Value: countValue(s.Size / scale)}
	}
	// MongoDB appends these numbers with appendNumber: int32 when they fit.
	out := bson.D{
		{Key: "size", Value: countValue(st.Size / scale)},
		{Key: "count", Value: countValue(st.Count)},
		{Key: "avgObjSize", Value: countValue(st.AvgObjSize)},
		{Key: "numOrphanDocs", Value: int32(0)},
		{Key: "storageSize", Value: countValue(st.StorageSize / scale)},
		{Key: "freeStorageSize", Value: int32(0)},
		{Key: "capped", Value: st.Capped},
	}
	if st.Capped {
		out = append(out, bson.E{Key: "max", Value: countValue(st.Max)}, bson.E{Key: "maxSize", Value: countValue(st.MaxSize / scale)})
	}
	return append(out, bson.D{
		{Key: "nindexes", Value: countValue(st.NIndexes)},
		{Key: "indexBuilds", Value: bson.A{}},
		{Key: "totalIndexSize", Value: countValue(st.TotalIndexSize / scale)},
		{Key: "totalSize", Value: countValue((st.StorageSize + st.TotalIndexSize) / scale)},
		{Key: "indexSizes", Value: sizes},
		{Key: "scaleFactor", Value: countValue(scale)},
	}...)
}

// scaleArg parses the scale of collStats and $collStats: a number >= 1.
func scaleArg(cmd string, el bson.RawElement) (int64, error) {
	n, err := int64Arg(cmd, el)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, errorf(mongoerr.Location51024, "BSON field 'scale' value must be >= 1, actual value '%d'", n)
	}
	return n, nil
}

// collStatsStage answers an aggregate whose first stage is $collStats:
// one document {ns, host, localTime, latencyStats?, storageStats?, count?}.
func collStatsStage(ctx context.Context, c *conn, db, coll string, pipeline []bson.D) (bson.Raw, error) {
	if len(pipeline) > 1 {
		return nil, errorf(mongoerr.NotImplemented, "$collStats: stages after $collStats are not supported by mayfly")
	}
	spec, ok := pipeline[0][0].Value.(bson.D)
	if !ok {
		return nil, errorf(mongoerr.Location5447000, "$collStats must take a nested object but found: %v", pipeline[0][0].Value)
	}
	out := bson.D{
		{Key: "ns", Value: namespace(db, coll)},
		{Key: "host", Value: c.s.host},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(c.s.now())},
	}
	var wantLatency, histograms, wantStorage, wantCount bool
	scale := int64(1)
	for _, e := range spec {
		switch e.Key {
		case "storageStats":
			wantStorage = true
			opts, ok := e.Value.(bson.D)
			if !ok {
				return nil, errorf(mongoerr.TypeMismatch, "BSON field '$collStats.storageStats' is the wrong type, expected type 'object'")
			}
			for _, o := range opts {
				switch o.Key {
				case "scale":
					raw, err := bson.Marshal(bson.D{{Key: "scale", Value: o.Value}})
					if err != nil {
						return nil, err
					}
					scale, err = scaleArg("$collStats.storageStats", bson.Raw(raw).Index(0))
					if err != nil {
						return nil, err
					}
				case "verbose", "waitForLock", "numericOnly":
				default:
					return nil, unknownField("$collStats.storageStats", o.Key)
				}
			}
		case "count":
			wantCount = true
		case "latencyStats":
			opts, ok := e.Value.(bson.D)
			if !ok {
				t, _, _ := bson.MarshalValue(e.Value)
				return nil, typeMismatch("$collStats", "latencyStats", t, "object")
			}
			wantLatency = true
			for _, o := range opts {
				if o.Key != "histograms" {
					return nil, unknownField("$collStats.latencyStats", o.Key)
				}
				b, ok := o.Value.(bool)
				if !ok {
					t, _, _ := bson.MarshalValue(o.Value)
					return nil, typeMismatch("$collStats.latencyStats", "histograms", t, "bool")
				}
				histograms = b
			}
		case "queryExecStats":
			return nil, errorf(mongoerr.NotImplemented, "$collStats: %s is not supported by mayfly", e.Key)
		default:
			return nil, unknownField("$collStats", e.Key)
		}
	}
	if wantLatency {
		out = append(out, bson.E{Key: "latencyStats", Value: c.s.metrics.collLatencies.doc(namespace(db, coll), histograms)})
	}
	if wantStorage || wantCount {
		st, err := c.s.db.CollStats(ctx, db, coll)
		if err != nil {
			return nil, err
		}
		if wantStorage {
			out = append(out, bson.E{Key: "storageStats", Value: storageStatsDoc(st, scale)})
		}
		if wantCount {
			out = append(out, bson.E{Key: "count", Value: countValue(st.Count)})
		}
	}
	return bson.Marshal(out)
}
