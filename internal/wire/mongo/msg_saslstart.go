package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgSaslStart answers saslStart: the first message of a SCRAM-SHA-1 or
// SCRAM-SHA-256 conversation for a user of the command's database.
func msgSaslStart(ctx context.Context, c *conn, req *request) (bson.D, error) {
	a, _, err := parseSaslStart(req.cmd, false)
	if err != nil {
		return nil, err
	}
	return c.saslStart(ctx, req.db, a, false)
}
