package mongo

import (
	"bytes"
	"context"
	"net"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// resourceKind is what a command's actions apply to.
type resourceKind uint8

const (
	// onNothing: the command needs an authenticated user and no
	// privilege (endSessions, whatsmyuri).
	onNothing resourceKind = iota
	// onCollection: the namespace of the command's first field (a
	// command whose first field is not a collection name, as aggregate:
	// 1, falls back to its database).
	onCollection
	// onDatabase: the command's database.
	onDatabase
	// onCluster: the cluster.
	onCluster
)

// access is what a command needs when access control is on.
type access struct {
	// public commands run before authentication (hello, saslStart, ...).
	public bool
	// actions are needed on the resource on.
	on      resourceKind
	actions mongoauth.ActionSet
	// extra, when set, adds requirements that depend on the command's
	// document (a role's database, $out's target, ...).
	extra func(req *request) []mongoauth.Requirement
	// handlerChecks, when set and true for req, leaves the privilege
	// check of an authenticated client to the handler (listCollections
	// with authorizedCollections lists what the user may see).
	handlerChecks func(req *request) bool
}

// open is the access of the commands MongoDB serves before
// authentication.
var open = access{public: true}

func need(on resourceKind, actions ...string) access {
	return access{on: on, actions: mongoauth.Actions(actions...)}
}

// with returns a with extra requirements.
func (a access) with(extra func(req *request) []mongoauth.Requirement) access {
	a.extra = extra
	return a
}

// connUser is the user a connection authenticated as, with its resolved
// privileges as of generation gen of the users and roles.
type connUser struct {
	name   userName
	roles  []mongoauth.RoleName
	grants *mongoauth.Grants
	gen    uint64
}

// baseResource is the concrete resource of kind on for req.
func baseResource(on resourceKind, req *request) mongoauth.Resource {
	switch on {
	case onCluster:
		return mongoauth.ClusterResource
	case onCollection:
		if v := req.first(); v.Type == bson.TypeString {
			return mongoauth.CollectionResource(req.db, v.StringValue())
		}
	}
	return mongoauth.DBResource(req.db)
}

// isNormalCollection reports whether v names a collection that is not a
// system collection, looking at its bytes only.
func isNormalCollection(v bson.RawValue) bool {
	if v.Type != bson.TypeString || len(v.Value) < 5 {
		return false
	}
	name := v.Value[4 : len(v.Value)-1]
	return len(name) > 0 && !bytes.HasPrefix(name, []byte("system."))
}

// requirements lists everything cmd needs to run req.
func (a access) requirements(req *request) []mongoauth.Requirement {
	var out []mongoauth.Requirement
	if !a.actions.Empty() {
		out = append(out, mongoauth.Requirement{Resource: baseResource(a.on, req), Actions: a.actions})
	}
	if a.extra != nil {
		out = append(out, a.extra(req)...)
	}
	return out
}

// authorize checks that the connection may run req under access control:
// MongoDB's "requires authentication" for an unauthenticated client, "not
// authorized" for a user lacking a privilege. Under the localhost
// exception (a loopback client while no user exists) an unauthenticated
// client holds MongoDB's default privileges instead: createUser and
// grantRole on admin, createUser on $external, and addShard,
// replSetConfigure and replSetGetStatus on the cluster.
func (c *conn) authorize(ctx context.Context, cmd *command, req *request) error {
	a := &cmd.access
	if a.public {
		return nil
	}
	u, err := c.currentUser(ctx)
	if err != nil {
		return err
	}
	if u == nil {
		if !c.localhostExceptionOpen(ctx) {
			return errorf(mongoerr.Unauthorized, "Command %s requires authentication", req.name)
		}
		// The localhost exception: MongoDB's default privileges, enough
		// to create the first user.
		u = &connUser{grants: localhostGrants}
	}
	if a.handlerChecks != nil && a.handlerChecks(req) {
		return nil
	}
	// The fast path: one requirement on a collection the user's database
	// privileges cover, decided without decoding the collection's name.
	if a.extra == nil {
		if a.actions.Empty() {
			return nil
		}
		if a.on == onCollection && isNormalCollection(req.first()) && u.grants.AllowsCollectionsOf(req.db, a.actions) {
			return nil
		}
		if u.grants.Allows(mongoauth.Requirement{Resource: baseResource(a.on, req), Actions: a.actions}) {
			return nil
		}
		return c.notAuthorized(req)
	}
	for _, r := range a.requirements(req) {
		if !u.grants.Allows(r) {
			return c.notAuthorized(req)
		}
	}
	return nil
}

func (c *conn) notAuthorized(req *request) error {
	c.s.metrics.authzFailures.Add(1)
	return errorf(mongoerr.Unauthorized, "not authorized on %s to execute command %s",
		req.db, valueString(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: req.cmd}))
}

var localhostGrants = mongoauth.GrantsOf([]mongoauth.Privilege{
	{Resource: mongoauth.DBResource(authDB), Actions: mongoauth.Actions("createUser", "grantRole")},
	{Resource: mongoauth.DBResource("$external"), Actions: mongoauth.Actions("createUser")},
	{Resource: mongoauth.ClusterResource, Actions: mongoauth.Actions("addShard", "replSetConfigure", "replSetGetStatus")},
})

// localhostExceptionOpen reports whether the client is on a loopback
// address and no user exists yet.
func (c *conn) localhostExceptionOpen(ctx context.Context) bool {
	if !isLoopback(c.nc.RemoteAddr()) {
		return false
	}
	any, err := c.s.anyUser(ctx)
	return err == nil && !any
}

func isLoopback(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// currentUser returns the connection's user with privileges resolved
// against the current users and roles, or nil when unauthenticated. A
// user dropped since it authenticated is logged out.
func (c *conn) currentUser(ctx context.Context) (*connUser, error) {
	u := c.user
	if u == nil {
		return nil, nil
	}
	gen := c.s.authGen.Load()
	if u.gen == gen {
		return u, nil
	}
	fresh, err := c.s.resolveUser(ctx, u.name)
	if err != nil {
		return nil, err
	}
	c.user = fresh
	c.publishUser()
	return fresh, nil
}

// resolveUser loads a user and resolves its privileges; nil when the user
// does not exist.
func (s *Server) resolveUser(ctx context.Context, name userName) (*connUser, error) {
	gen := s.authGen.Load()
	doc, err := s.findUser(ctx, name)
	if err != nil || doc == nil {
		return nil, err
	}
	src, _, err := s.roleSource(ctx)
	if err != nil {
		return nil, err
	}
	return &connUser{name: name, roles: doc.roles, grants: mongoauth.Resolve(doc.roles, src), gen: gen}, nil
}

// fieldTrue reports whether cmd has field key with a true value.
func fieldTrue(cmd bson.Raw, key string) bool {
	v, err := cmd.LookupErr(key)
	return err == nil && truthy(v)
}

// publishUser makes the connection's user visible to other goroutines.
func (c *conn) publishUser() {
	name := c.userString()
	c.authName.Store(&name)
}

// sharedUser is the connection's user as last published ("" before
// authentication); safe from any goroutine.
func (c *conn) sharedUser() string {
	if p := c.authName.Load(); p != nil {
		return *p
	}
	return ""
}

// userString names the connection's user ("user@db"), or "" before
// authentication.
func (c *conn) userString() string {
	if c.user == nil {
		return ""
	}
	return c.user.name.String()
}

// noteAuthWrite makes connections resolve their privileges again after a
// command that may have changed admin.system.users or admin.system.roles
// directly (an insert into them, a drop, dropDatabase of admin), not
// through the user and role commands.
func (c *conn) noteAuthWrite(req *request) {
	if req.name == "dropDatabase" {
		c.s.authChanged()
		return
	}
	if coll, ok := req.first().StringValueOK(); ok && (coll == usersColl || coll == rolesColl) {
		c.s.authChanged()
	}
}

// hostOf is the host part of a client address, which the failure throttle
// keys on (a client that reconnects gets a new port).
func hostOf(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}
