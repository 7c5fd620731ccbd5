package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgWhatsMyURI answers whatsmyuri: the client's address as the server sees
// it.
func msgWhatsMyURI(_ context.Context, c *conn, _ *request) (bson.D, error) {
	return bson.D{{Key: "you", Value: c.remote}}, nil
}
