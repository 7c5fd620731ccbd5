package mongoauth

import "testing"

func TestBuiltinRoles(t *testing.T) {
	find := Actions("find")
	cases := []struct {
		role RoleName
		req  Requirement
		want bool
	}{
		{RoleName{"read", "test"}, Requirement{CollectionResource("test", "c"), find}, true},
		{RoleName{"read", "test"}, Requirement{CollectionResource("other", "c"), find}, false},
		{RoleName{"read", "test"}, Requirement{CollectionResource("test", "c"), Actions("insert")}, false},
		{RoleName{"read", "test"}, Requirement{CollectionResource("test", "system.users"), find}, false},
		{RoleName{"readWrite", "test"}, Requirement{CollectionResource("test", "c"), Actions("insert", "update", "remove")}, true},
		{RoleName{"readWrite", "test"}, Requirement{DBResource("test"), Actions("dropDatabase")}, false},
		{RoleName{"readWrite", "test"}, Requirement{DBResource("test"), Actions("createUser")}, false},
		{RoleName{"dbAdmin", "test"}, Requirement{DBResource("test"), Actions("dropDatabase")}, true},
		{RoleName{"dbOwner", "test"}, Requirement{DBResource("test"), Actions("createUser", "dropDatabase")}, true},
		{RoleName{"userAdmin", "test"}, Requirement{CollectionResource("test", "c"), find}, false},
		{RoleName{"readAnyDatabase", "admin"}, Requirement{CollectionResource("x", "y"), find}, true},
		{RoleName{"readAnyDatabase", "test"}, Requirement{CollectionResource("x", "y"), find}, false},
		{RoleName{"readAnyDatabase", "admin"}, Requirement{ClusterResource, Actions("listDatabases")}, true},
		{RoleName{"clusterMonitor", "admin"}, Requirement{ClusterResource, Actions("serverStatus")}, true},
		{RoleName{"clusterMonitor", "admin"}, Requirement{ClusterResource, Actions("setParameter")}, false},
		{RoleName{"clusterAdmin", "admin"}, Requirement{ClusterResource, Actions("setParameter", "serverStatus", "killop")}, true},
		{RoleName{"root", "admin"}, Requirement{CollectionResource("admin", "system.users"), find}, true},
		{RoleName{"root", "admin"}, Requirement{DBResource("z"), Actions("createUser", "dropDatabase")}, true},
		{RoleName{"userAdminAnyDatabase", "admin"}, Requirement{DBResource("z"), Actions("createUser")}, true},
		// The *AnyDatabase roles do not cover local and config.
		{RoleName{"readAnyDatabase", "admin"}, Requirement{CollectionResource("local", "startup_log"), find}, false},
		{RoleName{"readWriteAnyDatabase", "admin"}, Requirement{CollectionResource("config", "x"), Actions("insert")}, false},
		{RoleName{"userAdminAnyDatabase", "admin"}, Requirement{DBResource("local"), Actions("createUser")}, false},
		{RoleName{"root", "admin"}, Requirement{CollectionResource("config", "x"), Actions("insert")}, true},
	}
	for _, c := range cases {
		g := Resolve([]RoleName{c.role}, nil)
		if got := g.Allows(c.req); got != c.want {
			t.Errorf("%v allows %v %v: %v, want %v", c.role, c.req.Resource, c.req.Actions.Names(), got, c.want)
		}
	}
}

func TestUserDefinedRoles(t *testing.T) {
	roles := map[RoleName]*Role{
		{"a", "admin"}: {Name: RoleName{"a", "admin"}, Privileges: []Privilege{{CollectionResource("db", "only"), Actions("insert")}},
			Roles: []RoleName{{"b", "admin"}}},
		{"b", "admin"}: {Name: RoleName{"b", "admin"}, Roles: []RoleName{{"a", "admin"}, {"read", "db"}}},
	}
	src := func(r RoleName) (*Role, bool) { ro, ok := roles[r]; return ro, ok }
	g := Resolve([]RoleName{{"a", "admin"}}, src)
	if !g.Allows(Requirement{CollectionResource("db", "only"), Actions("insert", "find")}) {
		t.Fatal("inherited and own privileges not combined")
	}
	if g.Allows(Requirement{CollectionResource("db", "other"), Actions("insert")}) {
		t.Fatal("a collection privilege covers another collection")
	}
	if got := len(Closure([]RoleName{{"a", "admin"}}, src)); got != 3 {
		t.Fatalf("closure of a cycle has %d roles, want 3", got)
	}
}
