package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgLogout answers logout: the connection's user, when it authenticated
// on the command's database, is logged out.
func msgLogout(_ context.Context, c *conn, req *request) (bson.D, error) {
	c.sasl = nil
	if c.user != nil && c.user.name.db == req.db {
		c.log.Info("logout", "user", c.user.name.user, "db", c.user.name.db, "client", c.remote)
		c.user = nil
		c.publishUser()
	}
	return bson.D{}, nil
}
