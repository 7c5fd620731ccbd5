package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgGetCmdLineOpts answers getCmdLineOpts with the command line the
// composition root passed in Options.CmdLineOpts.
func msgGetCmdLineOpts(_ context.Context, c *conn, _ *request) (bson.D, error) {
	argv := bson.A{}
	parsed := bson.D{}
	if o := c.s.opts.CmdLineOpts; o != nil {
		for _, a := range o.Argv {
			argv = append(argv, a)
		}
		if o.Parsed != nil {
			parsed = o.Parsed
		}
	}
	return bson.D{{Key: "argv", Value: argv}, {Key: "parsed", Value: parsed}}, nil
}
