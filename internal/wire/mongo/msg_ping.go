package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgPing answers ping: {ok: 1}.
func msgPing(context.Context, *conn, *request) (bson.D, error) {
	return bson.D{}, nil
}
