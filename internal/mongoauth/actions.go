package mongoauth

import (
	"math/bits"
	"slices"
)

// Action is one of MongoDB's privilege actions (find, insert, createUser,
// ...). Its String is the name privilege documents use.
type Action uint8

// actionNames are MongoDB's action names, in the order of the Action
// values; the index of a name is its Action.
var actionNames = []string{
	"addShard", "analyze", "anyAction", "appendOplogNote", "applicationMessage", "applyOps",
	"authSchemaUpgrade", "bypassDocumentValidation", "changeCustomData", "changeOwnCustomData",
	"changeOwnPassword", "changePassword", "changeStream", "checkFreeMonitoringStatus",
	"cleanupOrphaned", "closeAllDatabases", "collMod", "collStats", "compact", "connPoolStats",
	"connPoolSync", "convertToCapped", "cpuProfiler", "createCollection", "createIndex",
	"createRole", "createSearchIndexes", "createUser", "dbCheck", "dbHash", "dbStats",
	"dropAllRolesFromDatabase", "dropAllUsersFromDatabase", "dropCollection", "dropConnections",
	"dropDatabase", "dropIndex", "dropRole", "dropSearchIndex", "dropUser", "enableProfiler",
	"enableSharding", "find", "flushRouterConfig", "forceUUID", "fsync", "getClusterParameter",
	"getCmdLineOpts", "getDefaultRWConcern", "getLog", "getParameter", "getShardMap",
	"getShardVersion", "grantRole", "hostInfo", "impersonate", "indexStats", "inprog", "insert",
	"internal", "invalidateUserCache", "killAnyCursor", "killAnySession", "killCursors", "killop",
	"listCachedAndActiveUsers", "listCollections", "listDatabases", "listIndexes",
	"listSearchIndexes", "listSessions", "listShards", "logRotate", "moveChunk", "netstat",
	"planCacheIndexFilter", "planCacheRead", "planCacheWrite", "reIndex", "remove",
	"removeShard", "renameCollection", "renameCollectionSameDB", "replSetConfigure",
	"replSetGetConfig", "replSetGetStatus", "replSetHeartbeat", "replSetResizeOplog",
	"replSetStateChange", "resync", "revokeRole", "serverStatus", "setAuthenticationRestriction",
	"setClusterParameter", "setDefaultRWConcern", "setFeatureCompatibilityVersion",
	"setFreeMonitoring", "setParameter", "setUserWriteBlockMode", "shardCollection",
	"shardingState", "shutdown", "splitChunk", "splitVector", "storageDetails", "top", "touch",
	"unlock", "update", "updateSearchIndex", "useUUID", "validate", "viewRole", "viewUser",
}

var actionsByName = func() map[string]Action {
	m := make(map[string]Action, len(actionNames))
	for i, n := range actionNames {
		m[n] = Action(i)
	}
	return m
}()

// ParseAction returns the action of a name, and whether it is one.
func ParseAction(name string) (Action, bool) {
	a, ok := actionsByName[name]
	return a, ok
}

// MustAction returns the action of a name that is known to exist; it
// panics otherwise (a programming error in a table).
func MustAction(name string) Action {
	a, ok := actionsByName[name]
	if !ok {
		panic("mongoauth: unknown action " + name)
	}
	return a
}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "unknown"
}

// ActionSet is a set of actions.
type ActionSet [2]uint64

// Actions returns the set of the named actions; it panics on an unknown
// name (a programming error in a table).
func Actions(names ...string) ActionSet {
	var s ActionSet
	for _, n := range names {
		s.Add(MustAction(n))
	}
	return s
}

// Add adds a to the set.
func (s *ActionSet) Add(a Action) { s[a/64] |= 1 << (a % 64) }

// Has reports whether a is in the set.
func (s ActionSet) Has(a Action) bool { return s[a/64]&(1<<(a%64)) != 0 }

// Union returns the actions in s or t.
func (s ActionSet) Union(t ActionSet) ActionSet { return ActionSet{s[0] | t[0], s[1] | t[1]} }

// Minus returns the actions in s and not in t.
func (s ActionSet) Minus(t ActionSet) ActionSet { return ActionSet{s[0] &^ t[0], s[1] &^ t[1]} }

// Contains reports whether every action of t is in s; anyAction contains
// them all.
func (s ActionSet) Contains(t ActionSet) bool {
	if s.Has(actionAny) {
		return true
	}
	return s[0]&t[0] == t[0] && s[1]&t[1] == t[1]
}

// Empty reports whether the set has no action.
func (s ActionSet) Empty() bool { return s[0] == 0 && s[1] == 0 }

// Names returns the set's action names, sorted.
func (s ActionSet) Names() []string {
	var out []string
	for w := range 2 {
		for b := s[w]; b != 0; b &= b - 1 {
			out = append(out, Action(w*64+bits.TrailingZeros64(b)).String())
		}
	}
	slices.Sort(out)
	return out
}

var actionAny = MustAction("anyAction")
