package mongo

import (
	"context"
	"log/slog"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgGetLog answers getLog: "*" lists the logs, "global" returns the
// recent log lines and "startupWarnings" the warnings mongosh prints when
// it connects.
func msgGetLog(_ context.Context, c *conn, req *request) (bson.D, error) {
	v := req.first()
	name, ok := v.StringValueOK()
	if !ok {
		return nil, errorf(mongoerr.TypeMismatch, "Argument to getLog must be of type String; found %s of type %s", valueString(v), typeName(v.Type))
	}
	switch name {
	case "*":
		return bson.D{{Key: "names", Value: bson.A{"global", "startupWarnings"}}}, nil
	case "global":
		lines := c.s.ramLog.Lines()
		arr := make(bson.A, len(lines))
		for i, l := range lines {
			arr[i] = l
		}
		return bson.D{
			{Key: "totalLinesWritten", Value: int32(c.s.ramLog.TotalLinesWritten())},
			{Key: "log", Value: arr},
		}, nil
	case "startupWarnings":
		arr := bson.A{}
		for _, w := range c.s.opts.StartupWarnings {
			arr = append(arr, logLine(c.s.started, slog.LevelWarn, "CONTROL", "initandlisten", w, nil, "startupWarnings"))
		}
		return bson.D{
			{Key: "totalLinesWritten", Value: int32(len(arr))},
			{Key: "log", Value: arr},
		}, nil
	}
	return nil, errorf(mongoerr.OperationFailed, "no RamLog named: %s", name)
}
