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

// CommandNames returns every command of the table but the test-only ones,
// sorted.
func CommandNames() []string {
	return slices.DeleteFunc(slices.Clone(commandNames), func(name string) bool { return commandTable[name].testOnly })
}

// CommandAccess reports whether command name is served before
// authentication, whether it is admin-only, and the privileges (as
// privilege documents) it needs to run cmd on db.
func CommandAccess(name, db string, cmd bson.Raw) (public, adminOnly bool, privileges bson.A) {
	c := commandTable[name]
	req := &request{db: db, name: name, cmd: cmd}
	return c.access.public, c.adminOnly, privilegesDoc(c.access.requirements(req))
}
