package timeseries

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Options are a time-series collection's timeseries options.
type Options struct {
	TimeField string
	MetaField string // "" when the collection has none
	// Granularity is "seconds", "minutes" or "hours"; "" when the bucket
	// span was given in seconds instead.
	Granularity string
	// MaxSpan is bucketMaxSpanSeconds, Rounding bucketRoundingSeconds; 0
	// until Normalize fills them in from the granularity.
	MaxSpan  int64
	Rounding int64
}

// The granularities and their bucket span and rounding, in seconds.
var granularities = map[string]struct{ span, rounding int64 }{
	"seconds": {3600, 60},
	"minutes": {86400, 3600},
	"hours":   {2592000, 86400},
}

// ValidGranularity reports whether g names a granularity.
func ValidGranularity(g string) bool { _, ok := granularities[g]; return ok }

// MaxSpanLimit is the largest bucketMaxSpanSeconds (and
// bucketRoundingSeconds): one year.
const MaxSpanLimit = 31536000

// Normalize checks o as create does for the namespace ns and fills in the
// bucket span and rounding: from the granularity, or, when neither is
// given, the "seconds" granularity's. The span and rounding in seconds must
// be given together and be equal, and with a granularity they may only
// repeat its own values.
func (o *Options) Normalize(ns string) error {
	if strings.Contains(o.TimeField, ".") {
		return mongoerr.Newf(mongoerr.InvalidOptions, "%s: 'timeField' must be a top-level field and not contain a '.'", ns)
	}
	if o.MetaField != "" {
		switch {
		case o.MetaField == "_id":
			return mongoerr.New(mongoerr.InvalidOptions, `'metaField' cannot be "_id"`)
		case o.MetaField == o.TimeField:
			return mongoerr.New(mongoerr.InvalidOptions, "'metaField' cannot be the same as 'timeField'")
		case strings.Contains(o.MetaField, "."):
			return mongoerr.Newf(mongoerr.InvalidOptions, "%s: 'metaField' must be a top-level field and not contain a '.'", ns)
		}
	}
	if o.Granularity != "" {
		g := granularities[o.Granularity]
		if o.MaxSpan != 0 && o.MaxSpan != g.span {
			return mongoerr.Newf(mongoerr.InvalidOptions,
				"Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of %d for the provided granularity", g.span)
		}
		if o.Rounding != 0 && o.Rounding != g.rounding {
			return mongoerr.Newf(mongoerr.InvalidOptions,
				"Timeseries 'bucketRoundingSeconds' is not configurable to a value other than the default of %d for the provided granularity", g.rounding)
		}
		o.MaxSpan, o.Rounding = g.span, g.rounding
		return nil
	}
	if (o.MaxSpan == 0) != (o.Rounding == 0) {
		return mongoerr.New(mongoerr.InvalidOptions,
			"Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other")
	}
	if o.MaxSpan != o.Rounding {
		return mongoerr.New(mongoerr.InvalidOptions, "Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'")
	}
	if o.MaxSpan == 0 {
		g := granularities["seconds"]
		o.Granularity, o.MaxSpan, o.Rounding = "seconds", g.span, g.rounding
	}
	return nil
}

// OptionsDoc is the timeseries option as listCollections shows it: a granularity
// with its span, or the span and rounding given in seconds.
func (o Options) OptionsDoc() bson.D {
	d := bson.D{{Key: "timeField", Value: o.TimeField}}
	if o.MetaField != "" {
		d = append(d, bson.E{Key: "metaField", Value: o.MetaField})
	}
	if o.Granularity != "" {
		d = append(d, bson.E{Key: "granularity", Value: o.Granularity})
	} else {
		d = append(d, bson.E{Key: "bucketRoundingSeconds", Value: int32(o.Rounding)})
	}
	return append(d, bson.E{Key: "bucketMaxSpanSeconds", Value: int32(o.MaxSpan)})
}

// FromDoc reads options stored by OptionsDoc.
func FromDoc(d bson.D) (Options, error) {
	var o Options
	for _, e := range d {
		var ok bool
		switch e.Key {
		case "timeField":
			o.TimeField, ok = e.Value.(string)
		case "metaField":
			o.MetaField, ok = e.Value.(string)
		case "granularity":
			o.Granularity, ok = e.Value.(string)
		case "bucketRoundingSeconds":
			var n int32
			n, ok = e.Value.(int32)
			o.Rounding = int64(n)
		case "bucketMaxSpanSeconds":
			var n int32
			n, ok = e.Value.(int32)
			o.MaxSpan = int64(n)
		default:
			ok = true
		}
		if !ok {
			return o, fmt.Errorf("timeseries: stored option %s of type %T", e.Key, e.Value)
		}
	}
	if o.Rounding == 0 && o.Granularity != "" {
		o.Rounding = granularities[o.Granularity].rounding
	}
	if o.TimeField == "" || o.MaxSpan <= 0 || o.Rounding <= 0 {
		return o, fmt.Errorf("timeseries: stored options %v are incomplete", d)
	}
	return o, nil
}
