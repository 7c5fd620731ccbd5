package mongo

import (
	"bytes"
	"crypto/sha256"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// listLocalSessionsStage answers a pipeline that starts with
// $listLocalSessions ({}, {allUsers: true} or {users: [{user, db}]}): the
// stage becomes $documents of the sessions this server knows, one document
// {_id: {id, uid}, lastUse} each (user: {name} under access control): the
// session of the command itself and those of the open cursors. uid is the
// SHA-256 of the session's "user@db" (of "" without a user).
func listLocalSessionsStage(c *conn, req *request, pipeline []bson.D) ([]bson.D, error) {
	spec, ok := pipeline[0][0].Value.(bson.D)
	if !ok {
		return nil, errorf(mongoerr.TypeMismatch, "$listLocalSessions must take a nested object but found: %s", goTypeName(pipeline[0][0].Value))
	}
	var users map[string]bool
	for _, e := range spec {
		switch e.Key {
		case "allUsers":
			if _, ok := e.Value.(bool); !ok {
				return nil, errorf(mongoerr.TypeMismatch, "BSON field '$listLocalSessions.allUsers' is the wrong type '%s', expected type 'bool'", goTypeName(e.Value))
			}
		case "users":
			raw, err := bson.Marshal(bson.D{{Key: "users", Value: e.Value}})
			if err != nil {
				return nil, errorf(mongoerr.TypeMismatch, "BSON field '$listLocalSessions.users' is the wrong type '%s', expected type 'array'", goTypeName(e.Value))
			}
			if users, err = killSessionUsers("$listLocalSessions.users", bson.Raw(raw).Lookup("users")); err != nil {
				return nil, err
			}
		default:
			return nil, unknownField("$listLocalSessions", e.Key)
		}
	}
	now := bson.NewDateTimeFromTime(c.s.now())
	var out bson.A
	seen := map[string]bool{}
	add := func(id []byte, user string, lastUse bson.DateTime) {
		if id == nil || seen[string(id)] || (users != nil && !users[user]) {
			return
		}
		seen[string(id)] = true
		uid := sha256.Sum256([]byte(user))
		d := bson.D{
			{Key: "_id", Value: bson.D{
				{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: bytes.Clone(id)}},
				{Key: "uid", Value: bson.Binary{Subtype: bson.TypeBinaryGeneric, Data: uid[:]}},
			}},
			{Key: "lastUse", Value: lastUse},
		}
		if user != "" {
			d = append(d, bson.E{Key: "user", Value: bson.D{{Key: "name", Value: user}}})
		}
		out = append(out, d)
	}
	add(lsidOf(req), c.userString(), now)
	r := c.s.cursors
	r.mu.Lock()
	for _, cur := range r.cursors {
		add(cur.lsid, cur.owner, bson.NewDateTimeFromTime(cur.lastUsed))
	}
	r.mu.Unlock()
	if out == nil {
		out = bson.A{}
	}
	return append([]bson.D{{{Key: "$documents", Value: bson.D{{Key: "$literal", Value: out}}}}}, pipeline[1:]...), nil
}
