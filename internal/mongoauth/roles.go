package mongoauth

import (
	"maps"
	"slices"
)

// RoleName names a role: its name and the database it is defined in.
type RoleName struct {
	Role string
	DB   string
}

func (r RoleName) String() string { return r.Role + "@" + r.DB }

// Role is a user-defined role, as admin.system.roles stores it.
type Role struct {
	Name       RoleName
	Privileges []Privilege
	Roles      []RoleName
}

// RoleSource finds user-defined roles by name.
type RoleSource func(RoleName) (*Role, bool)

// Built-in role privileges, per MongoDB's documentation of its built-in
// roles.
var (
	readActions = Actions("changeStream", "collStats", "dbHash", "dbStats", "find", "killCursors",
		"listCollections", "listIndexes", "listSearchIndexes")
	writeActions = Actions("convertToCapped", "createCollection", "createIndex", "createSearchIndexes",
		"dropCollection", "dropIndex", "dropSearchIndex", "insert", "remove", "renameCollectionSameDB",
		"update", "updateSearchIndex")
	dbAdminActions = Actions("analyze", "bypassDocumentValidation", "collMod", "collStats", "compact",
		"convertToCapped", "createCollection", "createIndex", "dbStats", "dropCollection", "dropDatabase",
		"dropIndex", "enableProfiler", "listCollections", "listIndexes", "listSearchIndexes",
		"planCacheIndexFilter", "planCacheRead", "planCacheWrite", "reIndex", "renameCollectionSameDB",
		"storageDetails", "validate")
	profileActions = Actions("changeStream", "collStats", "convertToCapped", "createCollection", "dbHash",
		"dbStats", "dropCollection", "find", "killCursors", "listCollections", "listIndexes", "planCacheRead")
	userAdminActions = Actions("changeCustomData", "changePassword", "createRole", "createUser", "dropRole",
		"dropUser", "grantRole", "revokeRole", "setAuthenticationRestriction", "viewRole", "viewUser")
	clusterMonitorCluster = Actions("checkFreeMonitoringStatus", "connPoolStats", "getCmdLineOpts",
		"getDefaultRWConcern", "getLog", "getParameter", "getShardMap", "hostInfo", "inprog",
		"listDatabases", "listSessions", "listShards", "netstat", "replSetGetConfig", "replSetGetStatus",
		"serverStatus", "shardingState", "top", "useUUID")
	clusterMonitorAnyDB = Actions("collStats", "dbStats", "getShardVersion", "indexStats", "useUUID")
	hostManagerCluster  = Actions("applicationMessage", "closeAllDatabases", "connPoolSync", "dropConnections",
		"flushRouterConfig", "fsync", "invalidateUserCache", "killAnyCursor", "killAnySession", "killop",
		"logRotate", "resync", "setParameter", "shutdown", "touch", "unlock")
	hostManagerAnyDB      = Actions("killCursors")
	clusterManagerCluster = Actions("addShard", "appendOplogNote", "applicationMessage", "cleanupOrphaned",
		"flushRouterConfig", "getClusterParameter", "getDefaultRWConcern", "listSessions", "listShards",
		"removeShard", "replSetConfigure", "replSetGetConfig", "replSetGetStatus", "replSetStateChange",
		"resync", "setClusterParameter", "setDefaultRWConcern", "setFeatureCompatibilityVersion",
		"setFreeMonitoring", "setUserWriteBlockMode")
	clusterManagerAnyDB = Actions("enableSharding", "moveChunk", "splitChunk", "splitVector")
	backupCluster       = Actions("appendOplogNote", "getParameter", "listDatabases", "serverStatus",
		"setUserWriteBlockMode")
	backupAnyDB   = Actions("collStats", "dbHash", "dbStats", "find", "listCollections", "listIndexes")
	restoreAnyDB  = Actions("bypassDocumentValidation", "changeCustomData", "changePassword", "collMod", "convertToCapped", "createCollection", "createIndex", "createRole", "createUser", "dropCollection", "dropRole", "dropUser", "grantRole", "insert", "revokeRole", "viewRole", "viewUser")
	authzCollRead = Actions("collStats", "dbHash", "dbStats", "find", "killCursors", "planCacheRead")
)

// builtinDBRoles are the built-in roles every database has, each a
// function of the database.
var builtinDBRoles = map[string]func(db string) []Privilege{
	"read": func(db string) []Privilege {
		return []Privilege{{DBResource(db), readActions}, {CollectionResource(db, "system.js"), readActions}}
	},
	"readWrite": func(db string) []Privilege {
		rw := readActions.Union(writeActions)
		return []Privilege{{DBResource(db), rw}, {CollectionResource(db, "system.js"), rw}}
	},
	"dbAdmin": func(db string) []Privilege {
		return []Privilege{{DBResource(db), dbAdminActions}, {CollectionResource(db, "system.profile"), profileActions}}
	},
	"userAdmin": func(db string) []Privilege {
		return []Privilege{{DBResource(db), userAdminActions}}
	},
}

// Roles made of other built-in roles are added once the tables exist.
func init() {
	builtinDBRoles["dbOwner"] = func(db string) []Privilege {
		var out []Privilege
		for _, r := range []string{"readWrite", "dbAdmin", "userAdmin"} {
			out = append(out, builtinDBRoles[r](db)...)
		}
		return out
	}
	builtinAdminRoles["clusterAdmin"] = func() []Privilege {
		out := []Privilege{{Resource{}, Actions("dropDatabase")}}
		for _, r := range []string{"clusterManager", "clusterMonitor", "hostManager"} {
			out = append(out, builtinAdminRoles[r]()...)
		}
		return out
	}
	builtinAdminRoles["root"] = func() []Privilege {
		var out []Privilege
		for _, r := range []string{"readWriteAnyDatabase", "dbAdminAnyDatabase", "userAdminAnyDatabase", "clusterAdmin", "restore", "backup"} {
			out = append(out, builtinAdminRoles[r]()...)
		}
		return append(out, Privilege{Resource{Collection: "system.users"}, Actions("validate")},
			Privilege{Resource{Collection: "system.roles"}, Actions("validate")})
	}
}

// builtinAdminRoles are the built-in roles that exist only in the admin
// database.
// configMonitor and configLocalManager are clusterMonitor's privileges on
// config and clusterManager's on config and local.
var (
	configMonitor = Actions("collStats", "dbHash", "dbStats", "find", "getShardVersion", "indexStats",
		"killCursors", "listCollections", "listIndexes", "planCacheRead")
	configLocalManager = Actions("collStats", "dbHash", "dbStats", "enableSharding", "find", "insert",
		"killCursors", "listCollections", "listIndexes", "moveChunk", "planCacheRead", "remove",
		"splitChunk", "splitVector", "update")
)

var builtinAdminRoles = map[string]func() []Privilege{
	"clusterMonitor": func() []Privilege {
		return []Privilege{
			{ClusterResource, clusterMonitorCluster},
			{Resource{}, clusterMonitorAnyDB},
			{CollectionResource("local", "system.replset"), Actions("find")},
			{Resource{Collection: "system.profile"}, Actions("find")},
			{DBResource("config"), configMonitor},
		}
	},
	"hostManager": func() []Privilege {
		return []Privilege{{ClusterResource, hostManagerCluster}, {Resource{}, hostManagerAnyDB}}
	},
	"clusterManager": func() []Privilege {
		// The privileges on every database do not reach config and
		// local: clusterManager names them.
		return []Privilege{{ClusterResource, clusterManagerCluster}, {Resource{}, clusterManagerAnyDB},
			{DBResource("config"), configLocalManager}, {DBResource("local"), configLocalManager}}
	},
	"readAnyDatabase": func() []Privilege {
		return []Privilege{{ClusterResource, Actions("listDatabases")}, {Resource{}, readActions},
			{Resource{Collection: "system.js"}, readActions}}
	},
	"readWriteAnyDatabase": func() []Privilege {
		rw := readActions.Union(writeActions)
		return []Privilege{{ClusterResource, Actions("listDatabases")}, {Resource{}, rw},
			{Resource{Collection: "system.js"}, rw}}
	},
	"userAdminAnyDatabase": func() []Privilege {
		return []Privilege{
			{ClusterResource, Actions("authSchemaUpgrade", "invalidateUserCache", "listDatabases", "viewUser", "viewRole")},
			{Resource{}, userAdminActions},
			{CollectionResource("admin", "system.users"), authzCollRead.Union(Actions("createIndex", "dropIndex"))},
			{CollectionResource("admin", "system.roles"), authzCollRead.Union(Actions("createIndex", "dropIndex"))},
		}
	},
	"dbAdminAnyDatabase": func() []Privilege {
		return []Privilege{{ClusterResource, Actions("listDatabases")}, {Resource{}, dbAdminActions},
			{Resource{Collection: "system.profile"}, profileActions}}
	},
	"backup": func() []Privilege {
		return []Privilege{
			{ClusterResource, backupCluster},
			{Resource{}, backupAnyDB},
			{Resource{Collection: "system.js"}, backupAnyDB},
			{CollectionResource("admin", "system.users"), backupAnyDB},
			{CollectionResource("admin", "system.roles"), backupAnyDB},
			{CollectionResource("admin", "system.version"), backupAnyDB},
			{Resource{Collection: "system.profile"}, backupAnyDB},
		}
	},
	"restore": func() []Privilege {
		write := Actions("collMod", "createCollection", "createIndex", "dropCollection", "find", "insert", "remove", "update", "bypassDocumentValidation")
		return []Privilege{
			{ClusterResource, Actions("getParameter", "setUserWriteBlockMode")},
			{Resource{}, restoreAnyDB},
			{Resource{Collection: "system.js"}, write},
			{CollectionResource("admin", "system.users"), write},
			{CollectionResource("admin", "system.roles"), write},
			{CollectionResource("admin", "system.version"), write},
		}
	},
}

// IsBuiltin reports whether r is a built-in role.
func IsBuiltin(r RoleName) bool {
	_, ok := builtinPrivileges(r)
	return ok
}

// BuiltinRoles returns the built-in roles of database db, sorted by name.
func BuiltinRoles(db string) []RoleName {
	names := slices.Collect(maps.Keys(builtinDBRoles))
	if db == "admin" {
		names = append(names, slices.Collect(maps.Keys(builtinAdminRoles))...)
	}
	slices.Sort(names)
	out := make([]RoleName, len(names))
	for i, n := range names {
		out[i] = RoleName{n, db}
	}
	return out
}

// builtinPrivileges returns a built-in role's privileges.
func builtinPrivileges(r RoleName) ([]Privilege, bool) {
	if f, ok := builtinDBRoles[r.Role]; ok && r.DB != "" {
		return f(r.DB), true
	}
	if f, ok := builtinAdminRoles[r.Role]; ok && r.DB == "admin" {
		return f(), true
	}
	return nil, false
}

// RolePrivileges returns a role's own privileges (for a built-in role,
// all of them), and whether the role exists.
func RolePrivileges(r RoleName, roles RoleSource) ([]Privilege, bool) {
	if p, ok := builtinPrivileges(r); ok {
		return p, true
	}
	if roles == nil {
		return nil, false
	}
	role, ok := roles(r)
	if !ok {
		return nil, false
	}
	return role.Privileges, true
}

// Closure returns every role r reaches (r included), each once, in the
// order met; roles that do not exist are skipped and cycles cut.
func Closure(start []RoleName, roles RoleSource) []RoleName {
	seen := map[RoleName]bool{}
	var out []RoleName
	var visit func(r RoleName)
	visit = func(r RoleName) {
		if seen[r] {
			return
		}
		seen[r] = true
		if IsBuiltin(r) {
			out = append(out, r)
			return
		}
		if roles == nil {
			return
		}
		role, ok := roles(r)
		if !ok {
			return
		}
		out = append(out, r)
		for _, sub := range role.Roles {
			visit(sub)
		}
	}
	for _, r := range start {
		visit(r)
	}
	return out
}

// Resolve returns the grants of a user holding the given roles: the
// privileges of every role they reach.
func Resolve(userRoles []RoleName, roles RoleSource) *Grants {
	g := &Grants{}
	for _, r := range Closure(userRoles, roles) {
		p, _ := RolePrivileges(r, roles)
		for _, priv := range p {
			g.add(priv)
		}
	}
	return g
}

// GrantsOf returns the grants of a list of privileges.
func GrantsOf(privs []Privilege) *Grants {
	g := &Grants{}
	for _, p := range privs {
		g.add(p)
	}
	return g
}
