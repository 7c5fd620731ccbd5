package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgAuthenticate answers authenticate. MongoDB 7.0 serves only
// MONGODB-X509 through it, which needs TLS client certificates that mayfly
// does not take, so every attempt fails as MongoDB's failures do.
func msgAuthenticate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	mech := "<none>"
	if v, err := req.cmd.LookupErr("mechanism"); err == nil {
		if s, ok := v.StringValueOK(); ok {
			mech = s
		}
	}
	user := ""
	if v, err := req.cmd.LookupErr("user"); err == nil {
		user, _ = v.StringValueOK()
	}
	c.log.Info("Authentication failed", "mechanism", mech, "user", user, "db", req.db, "client", c.remote,
		"error", "mechanism not supported by authenticate")
	return nil, errAuthFailed
}
