package mongo

import (
	"context"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The tests' own command: mayflyTestUntilKilled runs until its context ends
// (killOp, maxTimeMS, a disconnect), as a long scan does.
func init() {
	commandTable["mayflyTestUntilKilled"] = &command{handler: func(ctx context.Context, _ *conn, _ *request) (bson.D, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, help: "blocks until interrupted (tests only)"}
	commandNames = append(commandNames, "mayflyTestUntilKilled")
	slices.Sort(commandNames)
}
