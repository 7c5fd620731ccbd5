package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgListCommands answers listCommands from the command table (the
// test-only commands only when they are served).
func msgListCommands(_ context.Context, c *conn, _ *request) (bson.D, error) {
	cmds := make(bson.D, 0, len(commandNames))
	for _, name := range commandNames {
		cmd := commandTable[name]
		if cmd.testOnly && !c.s.opts.TestCommands {
			continue
		}
		cmds = append(cmds, bson.E{Key: name, Value: bson.D{
			{Key: "help", Value: cmd.help},
			{Key: "requiresAuth", Value: false},
			{Key: "secondaryOk", Value: true},
			{Key: "adminOnly", Value: cmd.adminOnly},
			{Key: "apiVersions", Value: bson.A{}},
			{Key: "deprecatedApiVersions", Value: bson.A{}},
		}})
	}
	return bson.D{{Key: "commands", Value: cmds}}, nil
}
