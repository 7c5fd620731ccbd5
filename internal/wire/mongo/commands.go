package mongo

import (
	"context"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// handlerFunc runs one command. It returns the reply's fields (the
// dispatcher appends ok: 1) or an error: a *mongoerr.Error becomes an error
// reply with its code; any other error is an internal failure. Handlers
// never panic on client input; the dispatcher recovers once, for bugs.
type handlerFunc func(ctx context.Context, c *conn, req *request) (bson.D, error)

// command is one entry of the command table.
type command struct {
	handler handlerFunc
	// help is the text listCommands reports.
	help string
	// adminOnly commands run only against the admin database.
	adminOnly bool
	// opCounted commands count themselves in opcounters (insert, query,
	// update, delete, getmore); the others count as "command".
	opCounted bool
	// latency is the opLatencies class the command's time adds to.
	latency latencyClass
	// access is what the command needs when access control is on: every
	// entry declares it (the public ones with open).
	access access
	// testOnly commands exist only with Options.TestCommands, as MongoDB's
	// test commands exist only with enableTestCommands.
	testOnly bool
}

// commandTable maps every command name (aliases included) to its entry.
// It is the one table: dispatch, listCommands and metrics.commands all use
// it. Keep it sorted by name.
var commandTable map[string]*command

// commandNames is the table's names, sorted.
var commandNames []string

func init() {
	commandTable = map[string]*command{
		"abortTransaction":         {handler: msgAbortTransaction, help: "Aborts a transaction", adminOnly: true, access: need(onNothing)},
		"aggregate":                {handler: msgAggregate, help: "Runs the aggregation command. See http://dochub.mongodb.org/core/aggregation for more details.", latency: latencyReads, access: need(onNothing).with(aggregateAccess)},
		"buildInfo":                {handler: msgBuildInfo, help: "get version #, etc.\n{ buildinfo:1 }", access: open},
		"buildinfo":                {handler: msgBuildInfo, help: "get version #, etc.\n{ buildinfo:1 }", access: open},
		"cloneCollectionAsCapped":  {handler: msgCloneCollectionAsCapped, help: "{ cloneCollectionAsCapped:<fromName>, toCollection:<toName>, size:<sizeInBytes> }", access: need(onCollection, "find")},
		"collMod":                  {handler: msgCollMod, help: "Sets collection options.\nExample: { collMod: 'foo', viewOn: 'bar'} Example: { collMod: 'foo', index: {keyPattern: {a: 1}, expireAfterSeconds: 600} Example: { collMod: 'foo', index: {name: 'bar', expireAfterSeconds: 600} }\n", access: need(onCollection, "collMod")},
		"collStats":                {handler: msgCollStats, help: "{ collStats:\"blog.posts\" , scale : 1 } scale divides sizes e.g. for KB use 1024\n    avgObjSize - in bytes", access: need(onCollection, "collStats")},
		"commitTransaction":        {handler: msgCommitTransaction, help: "Commits a transaction", adminOnly: true, access: need(onNothing)},
		"compact":                  {handler: msgCompact, help: "compact collection\nwarning: this operation locks the database and is slow. you can cancel with killOp()\n{ compact : <collection_name>, [force:<bool>] }\n  force - allows to run on a replica set primary\n", access: need(onCollection, "compact")},
		"configureFailPoint":       {handler: msgConfigureFailPoint, help: "modifies the settings of a fail point", adminOnly: true, testOnly: true, access: need(onNothing)},
		"connectionStatus":         {handler: msgConnectionStatus, help: "Returns connection-specific information such as logged-in users and their roles", access: open},
		"count":                    {handler: msgCount, help: "count objects in collection", latency: latencyReads, access: need(onCollection, "find")},
		"convertToCapped":          {handler: msgConvertToCapped, help: "{ convertToCapped:<fromCollectionName>, size:<sizeInBytes> }", access: need(onCollection, "convertToCapped")},
		"create":                   {handler: msgCreate, help: "explicitly creates a collection or view\n{\n  create: <string: collection or view name> [,\n  capped: <bool: capped collection>,\n  autoIndexId: <bool: automatic creation of _id index>,\n  idIndex: <document: _id index specification>,\n  size: <int: size in bytes of the capped collection>,\n  max: <int: max number of documents in the capped collection>,\n  storageEngine: <document: storage engine configuration>,\n  validator: <document: validation rules>,\n  validationLevel: <string: validation level>,\n  validationAction: <string: validation action>,\n  indexOptionDefaults: <document: default configuration for indexes>,\n  viewOn: <string: name of source collection or view>,\n  pipeline: <array<object>: aggregation pipeline stage>,\n  collation: <document: default collation for the collection or view>,\n  writeConcern: <document: write concern expression for the operation>]\n}", access: need(onCollection, "createCollection")},
		"createIndexes":            {handler: msgCreateIndexes, help: "Create indexes on a collection", access: need(onCollection, "createIndex")},
		"currentOp":                {handler: msgCurrentOp, help: "no help defined", adminOnly: true, access: currentOpAccess},
		"dataSize":                 {handler: msgDataSize, help: "determine data size for a set of data in a certain range\nexample: { dataSize:\"blog.posts\", keyPattern:{x:1}, min:{x:10}, max:{x:55} }\nmin and max parameters are optional. They must either both be included or both omitted\nkeyPattern is an optional parameter indicating an index pattern that would be usefulfor iterating over the min/max bounds. If keyPattern is omitted, it is inferred from the structure of min. \nnote: This command may take a while to run", access: need(onNothing).with(dataSizeAccess)},
		"dbHash":                   {handler: msgDBHash, help: "no help defined", access: need(onDatabase, "dbHash")},
		"dbhash":                   {handler: msgDBHash, help: "no help defined", access: need(onDatabase, "dbHash")},
		"dbStats":                  {handler: msgDBStats, help: "Get stats on a database. Not instantaneous. Slower for databases with large .ns files.\nExample: { dbStats : 1, scale : 1 }", access: need(onDatabase, "dbStats")},
		"dbstats":                  {handler: msgDBStats, help: "Get stats on a database. Not instantaneous. Slower for databases with large .ns files.\nExample: { dbStats : 1, scale : 1 }", access: need(onDatabase, "dbStats")},
		"delete":                   {handler: msgDelete, help: "delete documents", opCounted: true, latency: latencyWrites, access: need(onCollection, "remove")},
		"distinct":                 {handler: msgDistinct, help: "{ distinct : 'collection name' , key : 'a.b' , query : {} }", latency: latencyReads, access: need(onCollection, "find")},
		"drop":                     {handler: msgDrop, help: "drop a collection\n{drop : <collectionName>}", access: need(onCollection, "dropCollection")},
		"dropDatabase":             {handler: msgDropDatabase, help: "drop (delete) this database", access: need(onDatabase, "dropDatabase")},
		"dropIndexes":              {handler: msgDropIndexes, help: "drop indexes for a collection", access: need(onCollection, "dropIndex")},
		"endSessions":              {handler: msgEndSessions, help: "end a set of logical sessions", access: need(onNothing)},
		"explain":                  {handler: msgExplain, help: "explain database reads and writes", access: need(onNothing).with(explainAccess)},
		"find":                     {handler: msgFind, help: "query for documents", opCounted: true, latency: latencyReads, access: need(onCollection, "find")},
		"findAndModify":            {handler: msgFindAndModify, help: "{ findAndModify: \"collection\", query: {processed:false}, update: {$set: {processed:true}}, new: true}\n{ findAndModify: \"collection\", query: {processed:false}, remove: true, sort: {priority:-1}}\nEither update or remove is required, all other fields have default values.\nOutput is in the \"value\" field\n", latency: latencyWrites, access: need(onCollection, "find").with(findAndModifyAccess)},
		"findandmodify":            {handler: msgFindAndModify, help: "{ findAndModify: \"collection\", query: {processed:false}, update: {$set: {processed:true}}, new: true}\n{ findAndModify: \"collection\", query: {processed:false}, remove: true, sort: {priority:-1}}\nEither update or remove is required, all other fields have default values.\nOutput is in the \"value\" field\n", latency: latencyWrites, access: need(onCollection, "find").with(findAndModifyAccess)},
		"getCmdLineOpts":           {handler: msgGetCmdLineOpts, help: "get argv", adminOnly: true, access: need(onCluster, "getCmdLineOpts")},
		"getLog":                   {handler: msgGetLog, help: "{ getLog : '*' }  OR { getLog : 'global' }", adminOnly: true, access: need(onCluster, "getLog")},
		"getMore":                  {handler: msgGetMore, help: "retrieve more results from an existing cursor", opCounted: true, latency: latencyReads, access: need(onNothing).with(getMoreAccess)},
		"getParameter":             {handler: msgGetParameter, help: "get administrative option(s)\nexample:\n{ getParameter:1, notablescan:1 }\n{ getParameter:'*' } to get everything\n", adminOnly: true, access: need(onCluster, "getParameter")},
		"hello":                    {handler: msgHello, help: "Check if this server is primary for a replica set\n{ hello : 1 }", access: open},
		"hostInfo":                 {handler: msgHostInfo, help: "returns information about the daemon's host", access: need(onCluster, "hostInfo")},
		"insert":                   {handler: msgInsert, help: "insert documents", opCounted: true, latency: latencyWrites, access: need(onCollection, "insert")},
		"isMaster":                 {handler: msgHello, help: "Check if this server is primary for a replica set\n{ isMaster : 1 }", access: open},
		"ismaster":                 {handler: msgHello, help: "Check if this server is primary for a replica set\n{ isMaster : 1 }", access: open},
		"killAllSessions":          {handler: msgKillAllSessions, help: "kill all logical sessions, for a user, and their operations", access: need(onCluster, "killAnySession")},
		"killAllSessionsByPattern": {handler: msgKillAllSessionsByPattern, help: "kill logical sessions by pattern", access: need(onCluster, "killAnySession")},
		"killCursors":              {handler: msgKillCursors, help: "Kill a list of cursor ids", access: need(onNothing)},
		"killOp":                   {handler: msgKillOp, help: "no help defined", adminOnly: true, access: need(onCluster, "killop")},
		"killSessions":             {handler: msgKillSessions, help: "kill a logical session and its operations", access: need(onNothing)},
		"listCollections":          {handler: msgListCollections, help: "list collections for this db", access: listCollectionsAccess},
		"listCommands":             {handler: msgListCommands, help: "get a list of all db commands", access: open},
		"listDatabases":            {handler: msgListDatabases, help: "{ listDatabases:1, [filter: <filterObject>] [, nameOnly: true ] }\nlist databases on this server", adminOnly: true, access: need(onNothing)},
		"listIndexes":              {handler: msgListIndexes, help: "list indexes for a collection", access: need(onCollection, "listIndexes")},
		"ping":                     {handler: msgPing, help: "a way to check that the server is alive. responds immediately even if server is in a db lock.", access: open},
		"refreshSessions":          {handler: msgRefreshSessions, help: "renew a set of logical sessions", access: need(onNothing)},
		"renameCollection":         {handler: msgRenameCollection, help: " example: { renameCollection: foo.a, to: bar.b }", adminOnly: true, access: need(onNothing).with(renameCollectionAccess)},
		"serverStatus":             {handler: msgServerStatus, help: "returns lots of administrative server statistics", access: need(onCluster, "serverStatus")},
		"setParameter":             {handler: msgSetParameter, help: "set administrative option(s)\n{ setParameter:1, <param>:<value> }\n", adminOnly: true, access: need(onCluster, "setParameter")},
		"startSession":             {handler: msgStartSession, help: "start a logical session", access: need(onNothing)},
		"testVersion2":             {handler: msgTestVersion2, help: "no help defined", testOnly: true, access: open},
		"update":                   {handler: msgUpdate, help: "update documents", opCounted: true, latency: latencyWrites, access: need(onCollection, "update").with(upsertAccess)},
		"validate":                 {handler: msgValidate, help: "Validate contents of a namespace by scanning its data structures for correctness.\nThis is a slow operation.\n\tAdd {full: true} option to do a more thorough check.\n\tAdd {background: true} to validate in the background.\n\tAdd {repair: true} to run repair mode.\nCannot specify both {full: true, background: true}.", access: need(onCollection, "validate")},
		"whatsmyuri":               {handler: msgWhatsMyURI, help: "{whatsmyuri:1}", access: need(onNothing)},
		"authenticate":             {handler: msgAuthenticate, help: "internal", access: open},
		"createRole":               {handler: msgCreateRole, help: "Adds a role to the system", access: need(onDatabase, "createRole").with(rolesFieldAccess("roles", "grantRole"))},
		"createUser":               {handler: msgCreateUser, help: "Adds a user to the system", access: need(onDatabase, "createUser").with(rolesFieldAccess("roles", "grantRole"))},
		"dropAllRolesFromDatabase": {handler: msgDropAllRolesFromDatabase, help: "Drops all roles from the given database.  Before deleting the roles completely it must remove them from any users or other roles that reference them.  If any errors occur in the middle of that process it's possible to be left in a state where the roles have been removed from some user/roles but otherwise still exist.", access: need(onDatabase, "dropRole")},
		"dropAllUsersFromDatabase": {handler: msgDropAllUsersFromDatabase, help: "Drops all users for a single database.", access: need(onDatabase, "dropUser")},
		"dropRole":                 {handler: msgDropRole, help: "Drops a single role.  Before deleting the role completely it must remove it from any users or roles that reference it.  If any errors occur in the middle of that process it's possible to be left in a state where the role has been removed from some user/roles but otherwise still exists.", access: need(onDatabase, "dropRole")},
		"dropUser":                 {handler: msgDropUser, help: "Drops a single user.", access: need(onDatabase, "dropUser")},
		"grantPrivilegesToRole":    {handler: msgGrantPrivilegesToRole, help: "Grants privileges to a role", access: need(onDatabase, "grantRole")},
		"grantRolesToRole":         {handler: msgGrantRolesToRole, help: "Grants roles to another role.", access: need(onDatabase, "grantRole").with(rolesFieldAccess("roles", "grantRole"))},
		"grantRolesToUser":         {handler: msgGrantRolesToUser, help: "Grants roles to a user.", access: need(onNothing).with(rolesFieldAccess("roles", "grantRole"))},
		"logout":                   {handler: msgLogout, help: "de-authenticate", access: open},
		"revokePrivilegesFromRole": {handler: msgRevokePrivilegesFromRole, help: "Revokes privileges from a role", access: need(onDatabase, "revokeRole")},
		"revokeRolesFromRole":      {handler: msgRevokeRolesFromRole, help: "Revokes roles from another role.", access: need(onDatabase, "revokeRole").with(rolesFieldAccess("roles", "revokeRole"))},
		"revokeRolesFromUser":      {handler: msgRevokeRolesFromUser, help: "Revokes roles from a user.", access: need(onNothing).with(rolesFieldAccess("roles", "revokeRole"))},
		"rolesInfo":                {handler: msgRolesInfo, help: "Returns information about roles.", access: need(onNothing).with(rolesInfoAccess)},
		"saslContinue":             {handler: msgSaslContinue, help: "Subsequent steps in a SASL authentication conversation.", access: open},
		"saslStart":                {handler: msgSaslStart, help: "First step in a SASL authentication conversation.", access: open},
		"updateRole":               {handler: msgUpdateRole, help: "Used to update a role", access: need(onDatabase, "grantRole", "revokeRole").with(rolesFieldAccess("roles", "grantRole"))},
		"updateUser":               {handler: msgUpdateUser, help: "Used to update a user, for example to change its password", access: need(onNothing).with(updateUserAccess)},
		"usersInfo":                {handler: msgUsersInfo, help: "Returns information about users.", access: need(onNothing).with(usersInfoAccess)},
	}
	for name, help := range replSetCommands {
		commandTable[name] = &command{handler: msgReplSet, help: help, adminOnly: true, access: replSetAccess(name)}
	}
	for name := range commandTable {
		commandNames = append(commandNames, name)
	}
	slices.Sort(commandNames)
}
