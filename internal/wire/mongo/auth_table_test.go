package mongo_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"

	wire "github.com/mayfly/mayfly/internal/wire/mongo"
)

// sampleCommand is a document of command name that reaches its
// authorization check (it need not succeed once authorized).
func sampleCommand(name string) bson.D {
	switch name {
	case "aggregate":
		return bson.D{{Key: name, Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}}
	case "explain":
		return bson.D{{Key: name, Value: bson.D{{Key: "find", Value: "c"}}}}
	case "getMore":
		return bson.D{{Key: name, Value: int64(1)}, {Key: "collection", Value: "c"}}
	case "renameCollection":
		return bson.D{{Key: name, Value: "test.a"}, {Key: "to", Value: "test.b"}}
	case "findAndModify", "findandmodify":
		return bson.D{{Key: name, Value: "c"}, {Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}}
	case "createUser":
		return bson.D{{Key: name, Value: "made"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"read"}}}
	case "updateUser":
		return bson.D{{Key: name, Value: "victim"}, {Key: "pwd", Value: "p2"}}
	case "grantRolesToUser", "revokeRolesFromUser":
		return bson.D{{Key: name, Value: "victim"}, {Key: "roles", Value: bson.A{"read"}}}
	case "dropUser":
		return bson.D{{Key: name, Value: "victim"}}
	case "createRole":
		return bson.D{{Key: name, Value: "made"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{"read"}}}
	case "updateRole", "grantRolesToRole", "revokeRolesFromRole":
		return bson.D{{Key: name, Value: "victimRole"}, {Key: "roles", Value: bson.A{"read"}}}
	case "grantPrivilegesToRole", "revokePrivilegesFromRole":
		return bson.D{{Key: name, Value: "victimRole"}, {Key: "privileges", Value: bson.A{}}}
	case "dropRole":
		return bson.D{{Key: name, Value: "victimRole"}}
	case "saslStart":
		return bson.D{{Key: name, Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"}, {Key: "payload", Value: bson.Binary{Data: []byte("n,,n=nobody,r=x")}}}
	case "saslContinue":
		return bson.D{{Key: name, Value: 1}, {Key: "conversationId", Value: 1}, {Key: "payload", Value: bson.Binary{}}}
	}
	return bson.D{{Key: name, Value: "c"}}
}

// TestAuthEveryCommand walks the command table: every command but the
// public ones is refused before authentication with MongoDB's "requires
// authentication", every command that needs a privilege is refused to a
// user without one with "not authorized on <db> to execute command", and
// is let through to a user holding exactly its privileges.
func TestAuthEveryCommand(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	mustRun(t, root.Database("admin"), bson.D{{Key: "createUser", Value: "nobody"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}}})
	anon := ts.client(t)
	nobody := ts.userClient(t, "nobody", "pw", "admin", "SCRAM-SHA-256")
	ctx := context.Background()
	public := map[string]bool{}
	for _, name := range wire.CommandNames() {
		cmd := sampleCommand(name)
		raw, _ := bson.Marshal(cmd)
		db := "test"
		isPublic, adminOnly, privs := wire.CommandAccess(name, db, raw)
		if adminOnly {
			db = "admin"
			isPublic, _, privs = wire.CommandAccess(name, db, raw)
		}
		if isPublic {
			public[name] = true
			continue
		}
		t.Run(name, func(t *testing.T) {
			// Unauthenticated.
			cmdError(t, anon.Database(db), cmd, 13, "Unauthorized", "Command "+name+" requires authentication")
			if name == "mayflyTestUntilKilled" {
				return
			}
			err := nobody.Database(db).RunCommand(ctx, cmd).Err()
			if len(privs) == 0 {
				if isUnauthorized(err) {
					t.Fatalf("a command needing no privilege refused: %v", err)
				}
				return
			}
			var ce drv.CommandError
			want := "not authorized on " + db + " to execute command { " + name + ": "
			if !errors.As(err, &ce) || ce.Code != 13 || ce.Name != "Unauthorized" || !strings.HasPrefix(ce.Message, want) {
				t.Fatalf("without privileges: %v, want %q...", err, want)
			}
			// A user holding exactly the command's privileges.
			setupVictims(t, root)
			role := "r_" + name
			mustRun(t, root.Database("admin"), bson.D{{Key: "createRole", Value: role}, {Key: "privileges", Value: privs}, {Key: "roles", Value: bson.A{}}})
			mustRun(t, root.Database("admin"), bson.D{{Key: "createUser", Value: "u_" + name}, {Key: "pwd", Value: "pw"},
				{Key: "roles", Value: bson.A{role}}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-256"}}})
			cl := ts.userClient(t, "u_"+name, "pw", "admin", "SCRAM-SHA-256")
			if err := cl.Database(db).RunCommand(ctx, cmd).Err(); isUnauthorized(err) {
				t.Fatalf("with its privileges %v: %v", privs, err)
			}
		})
	}
	for _, name := range []string{"hello", "isMaster", "ismaster", "buildInfo", "buildinfo", "ping", "saslStart", "saslContinue",
		"authenticate", "logout", "connectionStatus", "listCommands"} {
		if !public[name] {
			t.Errorf("%s is not served before authentication", name)
		}
		delete(public, name)
	}
	if len(public) > 0 {
		t.Errorf("served before authentication, unlike MongoDB: %v", public)
	}
}

// setupVictims (re)creates the user and role the user and role commands
// of the walk act on.
func setupVictims(t *testing.T, root *drv.Client) {
	t.Helper()
	test := root.Database("test")
	test.RunCommand(context.Background(), bson.D{{Key: "createUser", Value: "victim"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}}})
	test.RunCommand(context.Background(), bson.D{{Key: "createRole", Value: "victimRole"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}})
}

func isUnauthorized(err error) bool {
	var ce drv.CommandError
	return errors.As(err, &ce) && ce.Code == 13
}

// TestAuthNotAuthorizedMessage: MongoDB's words, the command document
// printed as its toString does.
func TestAuthNotAuthorizedMessage(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	mustRun(t, root.Database("admin"), bson.D{{Key: "createUser", Value: "nobody"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}}})
	cl := ts.userClient(t, "nobody", "pw", "admin", "")
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	id := sess.ID().Lookup("id")
	_, uuid := id.Binary()
	ctx := drv.NewSessionContext(context.Background(), sess)
	err = cl.Database("test").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}}).Err()
	var ce drv.CommandError
	if !errors.As(err, &ce) {
		t.Fatal(err)
	}
	hexID := hexUUID(uuid)
	want := `not authorized on test to execute command { find: "c", filter: { a: 1 }, lsid: { id: UUID("` + hexID + `") }, $db: "test" }`
	// The driver adds maxTimeMS from the client's timeout, and gossips
	// the $clusterTime of the server's last reply.
	got := regexp.MustCompile(`maxTimeMS: \d+, `).ReplaceAllString(ce.Message, "")
	got = regexp.MustCompile(`\$clusterTime: .*?keyId: 0 \} \}, `).ReplaceAllString(got, "")
	if got != want {
		t.Fatalf("message\n%s\nwant\n%s", ce.Message, want)
	}
}

func hexUUID(b []byte) string {
	const digits = "0123456789abcdef"
	var s []byte
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s = append(s, '-')
		}
		s = append(s, digits[c>>4], digits[c&15])
	}
	return string(s)
}
