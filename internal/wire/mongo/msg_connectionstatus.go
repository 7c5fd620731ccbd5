package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgConnectionStatus answers connectionStatus. mayfly has no access
// control, so no user is ever authenticated.
func msgConnectionStatus(_ context.Context, _ *conn, req *request) (bson.D, error) {
	auth := bson.D{
		{Key: "authenticatedUsers", Value: bson.A{}},
		{Key: "authenticatedUserRoles", Value: bson.A{}},
	}
	if v, err := req.cmd.LookupErr("showPrivileges"); err == nil && truthy(v) {
		auth = append(auth, bson.E{Key: "authenticatedUserPrivileges", Value: bson.A{}})
	}
	return bson.D{{Key: "authInfo", Value: auth}}, nil
}
