package mongo_test

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	wire "github.com/mayfly/mayfly/internal/wire/mongo"
)

// startAuthServer starts a Server with access control on.
func startAuthServer(t testing.TB) *testServer {
	return startServer(t, func(o *wire.Options) { o.Auth = true })
}

// userClient connects as user (of authSource) with mechanism.
func (ts *testServer) userClient(t testing.TB, user, pwd, authSource, mech string) *drv.Client {
	t.Helper()
	uri := "mongodb://" + url.QueryEscape(user) + ":" + url.QueryEscape(pwd) + "@" + ts.addr +
		"/?directConnection=true&authSource=" + authSource
	if mech != "" {
		uri += "&authMechanism=" + mech
	}
	cl, err := drv.Connect(options.Client().ApplyURI(uri).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

// createRoot creates the first user, admin/pw with root, through the
// localhost exception, and returns a client authenticated as it.
func createRoot(t testing.TB, ts *testServer) *drv.Client {
	t.Helper()
	anon := ts.client(t)
	mustRun(t, anon.Database("admin"), bson.D{{Key: "createUser", Value: "admin"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}}})
	return ts.userClient(t, "admin", "pw", "admin", "")
}

func TestAuthLocalhostExceptionAndMechanisms(t *testing.T) {
	ts := startAuthServer(t)
	anon := ts.client(t)
	// Before any user: the exception's privileges allow creating a user
	// in admin, nothing else.
	err := anon.Database("test").RunCommand(context.Background(), bson.D{{Key: "find", Value: "c"}}).Err()
	var ce drv.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 || !strings.HasPrefix(ce.Message, `not authorized on test to execute command { find: "c"`) {
		t.Fatalf("find under the localhost exception: %v", err)
	}
	cmdError(t, anon.Database("test"), bson.D{{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}},
		13, "Unauthorized", "")
	cmdError(t, anon.Database("admin"), bson.D{{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "test"}}}}},
		13, "Unauthorized", "")
	cmdError(t, anon.Database("admin"), bson.D{{Key: "createRole", Value: "r"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
		13, "Unauthorized", "")
	root := createRoot(t, ts)
	// The exception is closed once a user exists.
	cmdError(t, anon.Database("admin"), bson.D{{Key: "createUser", Value: "second"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}},
		13, "Unauthorized", "Command createUser requires authentication")
	mustRun(t, anon.Database("admin"), bson.D{{Key: "ping", Value: 1}})
	mustRun(t, anon.Database("admin"), bson.D{{Key: "buildInfo", Value: 1}})

	mustRun(t, root.Database("test"), bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "s3cret"},
		{Key: "roles", Value: bson.A{"readWrite"}}})
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-1", ""} {
		cl := ts.userClient(t, "app", "s3cret", "test", mech)
		coll := cl.Database("test").Collection("c")
		if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "mech", Value: mech}}); err != nil {
			t.Fatalf("%s: insert: %v", mech, err)
		}
		err := cl.Database("test").RunCommand(context.Background(), bson.D{{Key: "dropDatabase", Value: 1}}).Err()
		if !errors.As(err, &ce) || ce.Code != 13 || !strings.HasPrefix(ce.Message, "not authorized on test to execute command { dropDatabase: 1") {
			t.Fatalf("%s: dropDatabase by readWrite: %v", mech, err)
		}
		cmdError(t, cl.Database("test"), bson.D{{Key: "createUser", Value: "y"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}}, 13, "Unauthorized", "")
	}
	// A wrong password, an unknown user.
	for _, c := range []struct{ user, pwd string }{{"app", "wrong"}, {"nobody", "x"}} {
		cl := ts.userClient(t, c.user, c.pwd, "test", "SCRAM-SHA-256")
		err := cl.Ping(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), "AuthenticationFailed") && !strings.Contains(err.Error(), "Authentication failed") {
			t.Fatalf("%s/%s: ping: %v, want AuthenticationFailed", c.user, c.pwd, err)
		}
	}
	r := mustRun(t, root.Database("admin"), bson.D{{Key: "serverStatus", Value: 1}})
	sha256 := lookup(t, r, "security", "authentication", "mechanisms", "SCRAM-SHA-256")
	if recv, ok := sha256.Document().Lookup("authenticate", "received").AsInt64OK(); !ok || recv < 1 {
		// The driver authenticates speculatively first; either counter moves.
		spec := sha256.Document().Lookup("speculativeAuthenticate", "received").AsInt64()
		if spec < 3 {
			t.Fatalf("security.authentication: %v", sha256)
		}
	}
}

// TestAuthConversation drives saslStart and saslContinue by hand: the
// payload as BinData, conversationId, done, and the empty exchange without
// skipEmptyExchange.
func TestAuthConversation(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	mustRun(t, root.Database("admin"), bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "pencil"},
		{Key: "roles", Value: bson.A{}}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-1"}}})
	anon := ts.client(t).Database("admin")
	r := mustRun(t, anon, bson.D{{Key: "hello", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.u"}})
	if got := lookup(t, r, "saslSupportedMechs").String(); got != `["SCRAM-SHA-1"]` {
		t.Fatalf("saslSupportedMechs %s", got)
	}
	r = mustRun(t, anon, bson.D{{Key: "hello", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.nobody"}})
	if _, err := r.LookupErr("saslSupportedMechs"); err == nil {
		t.Fatal("saslSupportedMechs for an unknown user")
	}
	cmdError(t, anon, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
		{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=u,r=abc")}}}, 18, "AuthenticationFailed", "Authentication failed.")
	cmdError(t, anon, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "PLAIN"},
		{Key: "payload", Value: bson.Binary{Data: []byte("x")}}}, 334, "MechanismUnavailable", "")
	cmdError(t, anon, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: 1},
		{Key: "payload", Value: bson.Binary{Data: []byte("x")}}}, 17, "ProtocolError", "No SASL session state found")
	cmdError(t, anon, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-1"},
		{Key: "payload", Value: bson.Binary{Data: []byte("x")}}}, 40415, "IDLUnknownField", "BSON field 'saslContinue.mechanism' is an unknown field.")
	r = mustRun(t, anon, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-1"},
		{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=u,r=fyko+d2lbbFgONRv9qkxdawL")}}})
	if lookup(t, r, "conversationId").Int32() != 1 || lookup(t, r, "done").Boolean() {
		t.Fatalf("saslStart reply %v", r)
	}
	_, payload := lookup(t, r, "payload").Binary()
	if !strings.HasPrefix(string(payload), "r=fyko+d2lbbFgONRv9qkxdawL") || !strings.Contains(string(payload), ",i=10000") {
		t.Fatalf("server-first %q", payload)
	}
	// A bad proof fails.
	nonce := strings.TrimPrefix(strings.Split(string(payload), ",")[0], "r=")
	cmdError(t, anon, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: 1},
		{Key: "payload", Value: bson.Binary{Data: []byte("c=biws,r=" + nonce + ",p=AAAAAAAAAAAAAAAAAAAAAAAAAAA=")}}}, 18, "AuthenticationFailed", "Authentication failed.")
	cmdError(t, anon, bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}, 18, "AuthenticationFailed", "Authentication failed.")
}

func TestAuthConnectionStatusAndLogout(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	mustRun(t, root.Database("admin"), bson.D{{Key: "createRole", Value: "reader"},
		{Key: "privileges", Value: bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: "c"}}}, {Key: "actions", Value: bson.A{"find"}}}}},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "other"}}}}})
	mustRun(t, root.Database("app"), bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "reader"}, {Key: "db", Value: "admin"}}}}})
	cl := ts.userClient(t, "u", "pw", "app", "")
	db := cl.Database("app")
	r := mustRun(t, db, bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: true}})
	if got := lookup(t, r, "authInfo", "authenticatedUsers").String(); got != `[{"user": "u","db": "app"}]` {
		t.Fatalf("authenticatedUsers %s", got)
	}
	if got := lookup(t, r, "authInfo", "authenticatedUserRoles").String(); got != `[{"role": "reader","db": "admin"},{"role": "read","db": "other"}]` {
		t.Fatalf("authenticatedUserRoles %s", got)
	}
	if privs := lookup(t, r, "authInfo", "authenticatedUserPrivileges").String(); !strings.Contains(privs, `{"resource": {"db": "app","collection": "c"},"actions": ["find"]}`) {
		t.Fatalf("authenticatedUserPrivileges %s", privs)
	}
	if _, err := db.Collection("c").Find(context.Background(), bson.D{}); err != nil {
		t.Fatalf("find on the granted collection: %v", err)
	}
	cmdError(t, db, bson.D{{Key: "find", Value: "d"}}, 13, "Unauthorized", "")
	if _, err := cl.Database("other").Collection("x").CountDocuments(context.Background(), bson.D{}); err != nil {
		t.Fatalf("count through the inherited role: %v", err)
	}
	// Revoking the privilege takes effect on the open connection.
	mustRun(t, root.Database("admin"), bson.D{{Key: "revokePrivilegesFromRole", Value: "reader"},
		{Key: "privileges", Value: bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: "c"}}}, {Key: "actions", Value: bson.A{"find"}}}}}})
	cmdError(t, db, bson.D{{Key: "find", Value: "c"}}, 13, "Unauthorized", "")
	// A dropped user's connection is no longer authenticated.
	mustRun(t, root.Database("app"), bson.D{{Key: "dropUser", Value: "u"}})
	cmdError(t, db, bson.D{{Key: "count", Value: "c"}}, 13, "Unauthorized", "Command count requires authentication")
	r = mustRun(t, db, bson.D{{Key: "connectionStatus", Value: 1}})
	if got := lookup(t, r, "authInfo", "authenticatedUsers").String(); got != `[]` {
		t.Fatalf("after dropUser: %s", got)
	}
}

func TestAuthLogout(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	// One connection, so that logout and the next command share it.
	_ = root
	cl, err := drv.Connect(options.Client().ApplyURI("mongodb://admin:pw@" + ts.addr + "/?directConnection=true&maxPoolSize=1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	admin := cl.Database("admin")
	mustRun(t, admin, bson.D{{Key: "listDatabases", Value: 1}})
	mustRun(t, admin, bson.D{{Key: "logout", Value: 1}})
	cmdError(t, admin, bson.D{{Key: "listDatabases", Value: 1}}, 13, "Unauthorized", "Command listDatabases requires authentication")
}

func TestAuthUsersInfo(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	test := root.Database("test")
	mustRun(t, test, bson.D{{Key: "createUser", Value: "b"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"read"}},
		{Key: "customData", Value: bson.D{{Key: "team", Value: "x"}}}})
	mustRun(t, test, bson.D{{Key: "createUser", Value: "a"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}},
		{Key: "mechanisms", Value: bson.A{"SCRAM-SHA-256"}}})
	cmdError(t, test, bson.D{{Key: "createUser", Value: "a"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}}},
		51003, "Location51003", `User "a@test" already exists`)
	cmdError(t, test, bson.D{{Key: "createUser", Value: "c"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"nope"}}},
		31, "RoleNotFound", "Could not find role: nope@test")
	users := func(cmd bson.D) []string {
		t.Helper()
		r := mustRun(t, test, cmd)
		vals, _ := lookup(t, r, "users").Array().Values()
		var out []string
		for _, v := range vals {
			out = append(out, v.Document().Lookup("_id").StringValue())
		}
		return out
	}
	check := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("users %v, want %v", got, want)
		}
	}
	check(users(bson.D{{Key: "usersInfo", Value: 1}}), "test.a", "test.b")
	check(users(bson.D{{Key: "usersInfo", Value: "b"}}), "test.b")
	check(users(bson.D{{Key: "usersInfo", Value: bson.D{{Key: "user", Value: "admin"}, {Key: "db", Value: "admin"}}}}), "admin.admin")
	check(users(bson.D{{Key: "usersInfo", Value: bson.A{"a", bson.D{{Key: "user", Value: "admin"}, {Key: "db", Value: "admin"}}}}}), "test.a", "admin.admin")
	check(users(bson.D{{Key: "usersInfo", Value: bson.D{{Key: "forAllDBs", Value: true}}}}), "test.a", "admin.admin", "test.b")
	check(users(bson.D{{Key: "usersInfo", Value: 1}, {Key: "filter", Value: bson.D{{Key: "mechanisms", Value: "SCRAM-SHA-1"}}}}), "test.b")
	r := mustRun(t, test, bson.D{{Key: "usersInfo", Value: "b"}, {Key: "showCredentials", Value: true}, {Key: "showPrivileges", Value: true}})
	u := lookup(t, r, "users", "0").Document()
	if u.Lookup("customData", "team").StringValue() != "x" || u.Lookup("mechanisms").String() != `["SCRAM-SHA-1","SCRAM-SHA-256"]` {
		t.Fatalf("usersInfo %v", u)
	}
	creds := u.Lookup("credentials", "SCRAM-SHA-256").Document()
	if creds.Lookup("iterationCount").Int32() != 15000 || u.Lookup("credentials", "SCRAM-SHA-1", "iterationCount").Int32() != 10000 {
		t.Fatalf("credentials %v", u.Lookup("credentials"))
	}
	// As MongoDB 7.0: the whole credential but the password.
	for _, key := range []string{"salt", "storedKey", "serverKey"} {
		if v, err := creds.LookupErr(key); err != nil || v.StringValue() == "" {
			t.Fatalf("usersInfo showCredentials %s: %v", key, creds)
		}
	}
	if got := u.Lookup("inheritedRoles").String(); got != `[{"role": "read","db": "test"}]` {
		t.Fatalf("inheritedRoles %s", got)
	}
	// The stored document keeps the keys and never the password.
	raw, err := root.Database("admin").Collection("system.users").FindOne(context.Background(), bson.D{{Key: "_id", Value: "test.b"}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(raw.String(), `"pw"`) || raw.Lookup("credentials", "SCRAM-SHA-256", "storedKey").StringValue() == "" {
		t.Fatalf("stored user %v", raw)
	}
	// updateUser, grantRolesToUser, revokeRolesFromUser, dropAllUsersFromDatabase.
	mustRun(t, test, bson.D{{Key: "updateUser", Value: "a"}, {Key: "pwd", Value: "new"}})
	ts.userClient(t, "a", "new", "test", "SCRAM-SHA-256").Ping(context.Background(), nil)
	if err := ts.userClient(t, "a", "new", "test", "SCRAM-SHA-256").Ping(context.Background(), nil); err != nil {
		t.Fatalf("new password: %v", err)
	}
	mustRun(t, test, bson.D{{Key: "grantRolesToUser", Value: "a"}, {Key: "roles", Value: bson.A{"readWrite", "dbAdmin"}}})
	mustRun(t, test, bson.D{{Key: "revokeRolesFromUser", Value: "a"}, {Key: "roles", Value: bson.A{"readWrite"}}})
	r = mustRun(t, test, bson.D{{Key: "usersInfo", Value: "a"}})
	if got := lookup(t, r, "users", "0", "roles").String(); got != `[{"role": "dbAdmin","db": "test"}]` {
		t.Fatalf("roles after grant and revoke: %s", got)
	}
	cmdError(t, test, bson.D{{Key: "dropUser", Value: "zz"}}, 11, "UserNotFound", "User 'zz@test' not found")
	cmdError(t, test, bson.D{{Key: "updateUser", Value: "zz"}, {Key: "pwd", Value: "x"}}, 11, "UserNotFound", `Could not find user "zz" for db "test"`)
	r = mustRun(t, test, bson.D{{Key: "dropAllUsersFromDatabase", Value: 1}})
	if lookup(t, r, "n").Int32() != 2 {
		t.Fatalf("dropAllUsersFromDatabase %v", r)
	}
}

func TestAuthRoles(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	admin := root.Database("admin")
	mustRun(t, admin, bson.D{{Key: "createRole", Value: "a"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}})
	mustRun(t, admin, bson.D{{Key: "createRole", Value: "b"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{"a"}}})
	cmdError(t, admin, bson.D{{Key: "createRole", Value: "a"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
		51002, "Location51002", `Role "a@admin" already exists`)
	cmdError(t, admin, bson.D{{Key: "grantRolesToRole", Value: "a"}, {Key: "roles", Value: bson.A{"b"}}},
		49, "InvalidRoleModification", "Granting b@admin to a@admin would introduce a cycle in the role graph")
	cmdError(t, admin, bson.D{{Key: "createRole", Value: "c"}, {Key: "privileges", Value: bson.A{bson.D{
		{Key: "resource", Value: bson.D{{Key: "db", Value: "x"}, {Key: "collection", Value: ""}}}, {Key: "actions", Value: bson.A{"fly"}}}}},
		{Key: "roles", Value: bson.A{}}}, 9, "FailedToParse", "Unrecognized action privilege string: fly")
	mustRun(t, admin, bson.D{{Key: "grantPrivilegesToRole", Value: "a"}, {Key: "privileges", Value: bson.A{bson.D{
		{Key: "resource", Value: bson.D{{Key: "cluster", Value: true}}}, {Key: "actions", Value: bson.A{"serverStatus"}}}}}})
	r := mustRun(t, admin, bson.D{{Key: "rolesInfo", Value: "b"}, {Key: "showPrivileges", Value: true}})
	role := lookup(t, r, "roles", "0").Document()
	if role.Lookup("inheritedRoles").String() != `[{"role": "a","db": "admin"}]` ||
		role.Lookup("inheritedPrivileges").String() != `[{"resource": {"cluster": true},"actions": ["serverStatus"]}]` ||
		role.Lookup("isBuiltin").Boolean() {
		t.Fatalf("rolesInfo %v", role)
	}
	r = mustRun(t, admin, bson.D{{Key: "rolesInfo", Value: bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "x"}}}, {Key: "showPrivileges", Value: true}})
	if !lookup(t, r, "roles", "0", "isBuiltin").Boolean() || !strings.Contains(lookup(t, r, "roles", "0", "privileges").String(), `"find"`) {
		t.Fatalf("rolesInfo read@x %v", r)
	}
	mustRun(t, admin, bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"b"}}})
	cl := ts.userClient(t, "u", "pw", "admin", "")
	mustRun(t, cl.Database("admin"), bson.D{{Key: "serverStatus", Value: 1}})
	mustRun(t, admin, bson.D{{Key: "dropRole", Value: "a"}})
	cmdError(t, cl.Database("admin"), bson.D{{Key: "serverStatus", Value: 1}}, 13, "Unauthorized", "")
	r = mustRun(t, admin, bson.D{{Key: "rolesInfo", Value: "b"}})
	if got := lookup(t, r, "roles", "0", "roles").String(); got != `[]` {
		t.Fatalf("dropRole left %s in b", got)
	}
	mustRun(t, admin, bson.D{{Key: "updateRole", Value: "b"}, {Key: "roles", Value: bson.A{"clusterMonitor"}}})
	mustRun(t, cl.Database("admin"), bson.D{{Key: "serverStatus", Value: 1}})
	r = mustRun(t, admin, bson.D{{Key: "dropAllRolesFromDatabase", Value: 1}})
	if lookup(t, r, "n").Int32() != 1 {
		t.Fatalf("dropAllRolesFromDatabase %v", r)
	}
}

// TestAuthWithoutAuth: without access control nothing is checked, and
// users can still be managed.
func TestAuthWithoutAuth(t *testing.T) {
	ts := startServer(t)
	anon := ts.client(t)
	mustRun(t, anon.Database("test"), bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}}})
	mustRun(t, anon.Database("test"), bson.D{{Key: "dropDatabase", Value: 1}})
	mustRun(t, anon.Database("admin"), bson.D{{Key: "createUser", Value: "v"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}}})
	if err := ts.userClient(t, "u", "pw", "test", "").Ping(context.Background(), nil); err != nil {
		t.Fatalf("authenticate without access control: %v", err)
	}
}

// TestAuthFailureDelay: an address that keeps failing waits before each
// answer: nothing the first time, then 100 ms, 200 ms, ...; a success
// resets it.
func TestAuthFailureDelay(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	anon := ts.client(t).Database("admin")
	fail := func() time.Duration {
		start := time.Now()
		cmdError(t, anon, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
			{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=ghost,r=abc")}}}, 18, "AuthenticationFailed", "Authentication failed.")
		return time.Since(start)
	}
	fail()
	if d := fail(); d < 100*time.Millisecond {
		t.Fatalf("second failure answered after %v, want at least 100ms", d)
	}
	if d := fail(); d < 200*time.Millisecond {
		t.Fatalf("third failure answered after %v, want at least 200ms", d)
	}
	// A success from the address resets it.
	ts.userClient(t, "admin", "pw", "admin", "").Ping(context.Background(), nil)
	if d := fail(); d >= 100*time.Millisecond {
		t.Fatalf("failure after a success delayed %v", d)
	}
	_ = root
}

// TestAuthCursorOwner: only the user that opened a cursor may getMore it.
func TestAuthCursorOwner(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	for _, u := range []string{"a", "b"} {
		mustRun(t, root.Database("test"), bson.D{{Key: "createUser", Value: u}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"readWrite"}}})
	}
	a := ts.userClient(t, "a", "pw", "test", "").Database("test")
	b := ts.userClient(t, "b", "pw", "test", "").Database("test")
	if _, err := a.Collection("c").InsertMany(context.Background(), []any{bson.D{}, bson.D{}, bson.D{}}); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, a, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 1}})
	id := lookup(t, r, "cursor", "id").Int64()
	cmdError(t, b, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}, 13, "Unauthorized",
		"cursor id "+strconv.FormatInt(id, 10)+" was not created by the authenticated user")
	mustRun(t, a, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}})

	// killCursors: another user's cursor is refused, the owner's and
	// (with killAnyCursor) root's are killed.
	cmdError(t, b, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id}}}, 13, "Unauthorized",
		"not authorized to kill cursor on test.c")
	r = mustRun(t, a, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id, int64(99)}}})
	if k := lookup(t, r, "cursorsKilled").Array().Index(0).Int64(); k != id {
		t.Fatalf("killCursors by the owner = %v", r)
	}
	r = mustRun(t, a, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 1}})
	id = lookup(t, r, "cursor", "id").Int64()
	r = mustRun(t, root.Database("test"), bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id}}})
	if k := lookup(t, r, "cursorsKilled").Array().Index(0).Int64(); k != id {
		t.Fatalf("killCursors by root = %v", r)
	}
}

// scramConverse authenticates by hand, as the Go driver's SCRAM client
// would, on the connection of db's client.
func scramConverse(t *testing.T, db *drv.Database, user, pwd string) error {
	t.Helper()
	client, err := scram.SHA256.NewClient(user, pwd, "")
	if err != nil {
		t.Fatal(err)
	}
	conv := client.NewConversation()
	msg, _ := conv.Step("")
	r, err := db.RunCommand(context.Background(), bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
		{Key: "payload", Value: bson.Binary{Data: []byte(msg)}}, {Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}}}).Raw()
	if err != nil {
		return err
	}
	_, payload := r.Lookup("payload").Binary()
	msg, err = conv.Step(string(payload))
	if err != nil {
		t.Fatal(err)
	}
	r, err = db.RunCommand(context.Background(), bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: 1},
		{Key: "payload", Value: bson.Binary{Data: []byte(msg)}}}).Raw()
	if err != nil {
		return err
	}
	if !r.Lookup("done").Boolean() {
		t.Fatalf("skipEmptyExchange: not done after the proof: %v", r)
	}
	_, payload = r.Lookup("payload").Binary()
	if _, err := conv.Step(string(payload)); err != nil || !conv.Valid() {
		t.Fatalf("server signature refused: %v", err)
	}
	return nil
}

// TestAuthOneUserPerConnection: authenticating again as the same user is
// allowed, as another user is MongoDB's error.
func TestAuthOneUserPerConnection(t *testing.T) {
	ts := startAuthServer(t)
	createRoot(t, ts)
	cl, err := drv.Connect(options.Client().ApplyURI("mongodb://admin:pw@" + ts.addr + "/?directConnection=true&maxPoolSize=1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	admin := cl.Database("admin")
	mustRun(t, admin, bson.D{{Key: "createUser", Value: "other"}, {Key: "pwd", Value: "pw2"}, {Key: "roles", Value: bson.A{}}})
	mustRun(t, cl.Database("test"), bson.D{{Key: "createUser", Value: "elsewhere"}, {Key: "pwd", Value: "pw3"}, {Key: "roles", Value: bson.A{}}})
	if err := scramConverse(t, admin, "admin", "pw"); err != nil {
		t.Fatalf("authenticating again as the same user: %v", err)
	}
	wantError(t, scramConverse(t, admin, "other", "pw2"), 5626701, "Location5626701",
		"Each client connection may only be authenticated once. Previously authenticated as: admin@admin")
	wantError(t, scramConverse(t, cl.Database("test"), "elsewhere", "pw3"), 5626702, "Location5626702",
		"Client has attempted to authenticate on multiple databases.Already authenticated as: admin@admin")
}

// TestAuthDirectWrites: a change written straight into admin.system.users
// applies to open connections as the user commands' changes do.
func TestAuthDirectWrites(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	mustRun(t, root.Database("test"), bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"read"}}})
	db := ts.userClient(t, "u", "pw", "test", "").Database("test")
	mustRun(t, db, bson.D{{Key: "find", Value: "c"}})
	users := root.Database("admin").Collection("system.users")
	if _, err := users.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "test.u"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "roles", Value: bson.A{}}}}}); err != nil {
		t.Fatal(err)
	}
	cmdError(t, db, bson.D{{Key: "find", Value: "c"}}, 13, "Unauthorized", "")
}

// TestAuthChangeStream: opening a change stream needs changeStream and
// find on what it watches, as MongoDB requires; find alone is refused.
func TestAuthChangeStream(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	admin := root.Database("admin")
	priv := func(actions ...string) bson.A {
		return bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: "c"}}},
			{Key: "actions", Value: actions}}}
	}
	mustRun(t, admin, bson.D{{Key: "createRole", Value: "findOnly"}, {Key: "privileges", Value: priv("find")}, {Key: "roles", Value: bson.A{}}})
	mustRun(t, admin, bson.D{{Key: "createRole", Value: "watcher"}, {Key: "privileges", Value: priv("find", "changeStream")}, {Key: "roles", Value: bson.A{}}})
	mustRun(t, admin, bson.D{{Key: "createUser", Value: "f"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"findOnly"}}})
	mustRun(t, admin, bson.D{{Key: "createUser", Value: "w"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"watcher"}}})
	watch := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}}},
		{Key: "cursor", Value: bson.D{}}}
	cmdError(t, ts.userClient(t, "f", "pw", "admin", "").Database("app"), watch, 13, "Unauthorized", "")
	err := ts.userClient(t, "w", "pw", "admin", "").Database("app").RunCommand(t.Context(), watch).Err()
	if ce, ok := err.(drv.CommandError); ok && ce.Code == 13 {
		t.Fatalf("a user with changeStream and find was refused: %v", err)
	}
	cmdError(t, ts.userClient(t, "w", "pw", "admin", "").Database("app"), bson.D{{Key: "aggregate", Value: 1},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}},
		13, "Unauthorized", "")
}

// TestAuthAnyDatabaseRoles: readAnyDatabase and readWriteAnyDatabase
// cover every database but local and config, as in MongoDB; root covers
// those too.
func TestAuthAnyDatabaseRoles(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	ctx := context.Background()
	for _, db := range []string{"app", "local", "config"} {
		if _, err := root.Database(db).Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			t.Fatalf("root inserts into %s: %v", db, err)
		}
	}
	mustRun(t, root.Database("admin"), bson.D{{Key: "createUser", Value: "rw"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{"readWriteAnyDatabase"}}})
	rw := ts.userClient(t, "rw", "pw", "admin", "")
	if err := rw.Database("app").Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Fatalf("readWriteAnyDatabase reads app: %v", err)
	}
	for _, db := range []string{"local", "config"} {
		err := rw.Database(db).Collection("c").FindOne(ctx, bson.D{}).Err()
		var ce drv.CommandError
		if !errors.As(err, &ce) || ce.Code != 13 || !strings.HasPrefix(ce.Message, "not authorized on "+db+" to execute command { find: \"c\"") {
			t.Fatalf("readWriteAnyDatabase reads %s: %v", db, err)
		}
		_, err = rw.Database(db).Collection("c").InsertOne(ctx, bson.D{})
		if !errors.As(err, &ce) || ce.Code != 13 {
			t.Fatalf("readWriteAnyDatabase writes %s: %v", db, err)
		}
	}
}

// TestAuthListCollectionsAuthorized: a user with a privilege on one
// collection only lists, with authorizedCollections and nameOnly, the
// collections it may use, and is refused listCollections otherwise.
func TestAuthListCollectionsAuthorized(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	ctx := context.Background()
	for _, coll := range []string{"only", "other"} {
		if _, err := root.Database("test").Collection(coll).InsertOne(ctx, bson.D{}); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, root.Database("test"), bson.D{{Key: "createRole", Value: "onlyReader"}, {Key: "roles", Value: bson.A{}},
		{Key: "privileges", Value: bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "test"}, {Key: "collection", Value: "only"}}},
			{Key: "actions", Value: bson.A{"find"}}}}}})
	mustRun(t, root.Database("test"), bson.D{{Key: "createUser", Value: "narrow"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"onlyReader"}}})
	narrow := ts.userClient(t, "narrow", "pw", "test", "").Database("test")
	names, err := narrow.ListCollectionNames(ctx, bson.D{}, options.ListCollections().SetAuthorizedCollections(true))
	if err != nil || len(names) != 1 || names[0] != "only" {
		t.Fatalf("authorized collections = %v, %v", names, err)
	}
	_, err = narrow.ListCollectionNames(ctx, bson.D{})
	var ce drv.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Fatalf("listCollections without authorizedCollections: %v", err)
	}
	_, err = ts.userClient(t, "narrow", "pw", "test", "").Database("elsewhere").ListCollectionNames(ctx, bson.D{},
		options.ListCollections().SetAuthorizedCollections(true))
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Fatalf("authorizedCollections without a privilege in the database: %v", err)
	}
	all, err := root.Database("test").ListCollectionNames(ctx, bson.D{}, options.ListCollections().SetAuthorizedCollections(true))
	if err != nil || len(all) != 2 {
		t.Fatalf("root's authorized collections = %v, %v", all, err)
	}
}

// TestAuthCurrentOpOwnOps: currentOp with $ownOps: true needs no inprog
// privilege and reports the user's own connections and cursors only.
func TestAuthCurrentOpOwnOps(t *testing.T) {
	ts := startAuthServer(t)
	root := createRoot(t, ts)
	ctx := context.Background()
	if _, err := root.Database("test").Collection("c").InsertMany(ctx, []any{bson.D{}, bson.D{}, bson.D{}}); err != nil {
		t.Fatal(err)
	}
	clients := map[string]*drv.Client{}
	for _, u := range []string{"a", "b"} {
		mustRun(t, root.Database("test"), bson.D{{Key: "createUser", Value: u}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"readWrite"}}})
		clients[u] = ts.userClient(t, u, "pw", "test", "")
		mustRun(t, clients[u].Database("test"), bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 1}})
	}
	admin := clients["a"].Database("admin")
	var ce drv.CommandError
	if err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}}).Err(); !errors.As(err, &ce) || ce.Code != 13 {
		t.Fatalf("currentOp without inprog: %v", err)
	}
	count := func(db *drv.Database) (cursors, conns int) {
		t.Helper()
		r := mustRun(t, db, bson.D{{Key: "currentOp", Value: 1}, {Key: "$ownOps", Value: true}, {Key: "$all", Value: true}})
		vals, err := lookup(t, r, "inprog").Array().Values()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if v.Document().Lookup("type").StringValue() == "idleCursor" {
				cursors++
			} else {
				conns++
			}
		}
		return cursors, conns
	}
	if cursors, conns := count(admin); cursors != 1 || conns == 0 {
		t.Fatalf("a's own operations: %d idle cursors, %d connections; want 1 cursor", cursors, conns)
	}
	if cursors, _ := count(root.Database("admin")); cursors != 0 {
		t.Fatalf("root's own operations list %d cursors of others", cursors)
	}
	r := mustRun(t, root.Database("admin"), bson.D{{Key: "currentOp", Value: 1}, {Key: "$all", Value: true}, {Key: "type", Value: "idleCursor"}})
	if n := len(lookup(t, r, "inprog").Array().Index(0).Document()); n == 0 {
		t.Fatalf("root's currentOp without $ownOps: %v", r)
	}
}

// TestAuthRestrictionsRefused: address restrictions, which mayfly does not
// enforce, are refused rather than stored; an empty list is accepted.
func TestAuthRestrictionsRefused(t *testing.T) {
	ts := startAuthServer(t)
	admin := createRoot(t, ts).Database("admin")
	restricted := bson.A{bson.D{{Key: "clientSource", Value: bson.A{"10.0.0.0/8"}}}}
	cmdError(t, admin, bson.D{{Key: "createUser", Value: "r"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}},
		{Key: "authenticationRestrictions", Value: restricted}}, 2, "BadValue", "")
	cmdError(t, admin, bson.D{{Key: "createRole", Value: "rr"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}},
		{Key: "authenticationRestrictions", Value: restricted}}, 2, "BadValue", "")
	mustRun(t, admin, bson.D{{Key: "createUser", Value: "open"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{}},
		{Key: "authenticationRestrictions", Value: bson.A{}}})
}
