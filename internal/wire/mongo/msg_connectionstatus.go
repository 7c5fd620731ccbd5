package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgConnectionStatus answers connectionStatus: the connection's
// authenticated user, every role it holds (inherited ones included) and,
// with showPrivileges, its privileges.
func msgConnectionStatus(ctx context.Context, c *conn, req *request) (bson.D, error) {
	users, roles := bson.A{}, bson.A{}
	var privs []mongoauth.Privilege
	u, err := c.currentUser(ctx)
	if err != nil {
		return nil, err
	}
	if u != nil {
		users = append(users, bson.D{{Key: "user", Value: u.name.user}, {Key: "db", Value: u.name.db}})
		src, _, err := c.s.roleSource(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range mongoauth.Closure(u.roles, src) {
			roles = append(roles, bson.D{{Key: "role", Value: r.Role}, {Key: "db", Value: r.DB}})
		}
		privs = u.grants.Privileges()
	}
	auth := bson.D{
		{Key: "authenticatedUsers", Value: users},
		{Key: "authenticatedUserRoles", Value: roles},
	}
	if v, err := req.cmd.LookupErr("showPrivileges"); err == nil && truthy(v) {
		auth = append(auth, bson.E{Key: "authenticatedUserPrivileges", Value: privilegesDoc(privs)})
	}
	return bson.D{{Key: "authInfo", Value: auth}}, nil
}
