package update

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// updateStages are the stages a pipeline-style update may use.
var updateStages = map[string]bool{
	"$addFields": true, "$set": true, "$project": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true,
}

func parsePipeline(stages bson.A, opts Options) (*Update, error) {
	if len(opts.ArrayFilters) > 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "arrayFilters may not be specified for pipeline-style updates")
	}
	for _, s := range stages {
		d, ok := s.(bson.D)
		if !ok || len(d) != 1 {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		if !updateStages[d[0].Key] {
			return nil, mongoerr.Newf(mongoerr.InvalidOptions, "%s is not allowed to be used within an update", d[0].Key)
		}
	}
	p, err := aggregate.Parse(stages, aggregate.Options{Vars: opts.Vars})
	if err != nil {
		return nil, err
	}
	return &Update{kind: Pipeline, pipeline: p}, nil
}
