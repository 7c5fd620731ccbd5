package mongo

import (
	"context"
	"runtime"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgBuildInfo answers buildInfo: the MongoDB version mayfly reproduces
// (mongosh prints it as "Using MongoDB"), and mayfly's own version in the
// mayfly field.
func msgBuildInfo(context.Context, *conn, *request) (bson.D, error) {
	version, revision := mayflyVersion()
	arr := make(bson.A, len(mongoVersionArray))
	for i, v := range mongoVersionArray {
		arr[i] = v
	}
	return bson.D{
		{Key: "version", Value: mongoVersion},
		{Key: "gitVersion", Value: revision},
		{Key: "modules", Value: bson.A{}},
		{Key: "allocator", Value: "go"},
		{Key: "javascriptEngine", Value: "none"},
		{Key: "sysInfo", Value: "deprecated"},
		{Key: "versionArray", Value: arr},
		{Key: "bits", Value: int32(64)},
		{Key: "debug", Value: false},
		{Key: "maxBsonObjectSize", Value: int32(MaxBSONObjectSize)},
		{Key: "storageEngines", Value: bson.A{"pebble"}},
		{Key: "buildEnvironment", Value: bson.D{
			{Key: "target_os", Value: runtime.GOOS},
			{Key: "target_arch", Value: runtime.GOARCH},
			{Key: "compiler", Value: runtime.Version()},
		}},
		{Key: "mayfly", Value: bson.D{
			{Key: "version", Value: version},
			{Key: "gitVersion", Value: revision},
		}},
	}, nil
}
