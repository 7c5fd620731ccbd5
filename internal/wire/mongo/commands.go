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
}

// commandTable maps every command name (aliases included) to its entry.
// It is the one table: dispatch, listCommands and metrics.commands all use
// it. Keep it sorted by name.
var commandTable map[string]*command

// commandNames is the table's names, sorted.
var commandNames []string

func init() {
	commandTable = map[string]*command{
		"aggregate":        {handler: msgAggregate, help: "Runs the aggregation command. See http://dochub.mongodb.org/core/aggregation for more details.", latency: latencyReads},
		"buildInfo":        {handler: msgBuildInfo, help: "get version #, etc.\n{ buildinfo:1 }"},
		"buildinfo":        {handler: msgBuildInfo, help: "get version #, etc.\n{ buildinfo:1 }"},
		"collMod":          {handler: msgCollMod, help: "Sets collection options.\nExample: { collMod: 'foo', viewOn: 'bar'} Example: { collMod: 'foo', index: {keyPattern: {a: 1}, expireAfterSeconds: 600} Example: { collMod: 'foo', index: {name: 'bar', expireAfterSeconds: 600} }\n"},
		"collStats":        {handler: msgCollStats, help: "{ collStats:\"blog.posts\" , scale : 1 } scale divides sizes e.g. for KB use 1024\n    avgObjSize - in bytes"},
		"connectionStatus": {handler: msgConnectionStatus, help: "Returns connection-specific information such as logged-in users and their roles"},
		"count":            {handler: msgCount, help: "count objects in collection", latency: latencyReads},
		"create":           {handler: msgCreate, help: "explicitly creates a collection or view\n{\n  create: <string: collection or view name> [,\n  capped: <bool: capped collection>,\n  autoIndexId: <bool: automatic creation of _id index>,\n  idIndex: <document: _id index specification>,\n  size: <int: size in bytes of the capped collection>,\n  max: <int: max number of documents in the capped collection>,\n  storageEngine: <document: storage engine configuration>,\n  validator: <document: validation rules>,\n  validationLevel: <string: validation level>,\n  validationAction: <string: validation action>,\n  indexOptionDefaults: <document: default configuration for indexes>,\n  viewOn: <string: name of source collection or view>,\n  pipeline: <array<object>: aggregation pipeline stage>,\n  collation: <document: default collation for the collection or view>,\n  writeConcern: <document: write concern expression for the operation>]\n}"},
		"createIndexes":    {handler: msgCreateIndexes, help: "Create indexes on a collection"},
		"currentOp":        {handler: msgCurrentOp, help: "no help defined", adminOnly: true},
		"dbStats":          {handler: msgDBStats, help: "Get stats on a database. Not instantaneous. Slower for databases with large .ns files.\nExample: { dbStats : 1, scale : 1 }"},
		"dbstats":          {handler: msgDBStats, help: "Get stats on a database. Not instantaneous. Slower for databases with large .ns files.\nExample: { dbStats : 1, scale : 1 }"},
		"delete":           {handler: msgDelete, help: "delete documents", opCounted: true, latency: latencyWrites},
		"distinct":         {handler: msgDistinct, help: "{ distinct : 'collection name' , key : 'a.b' , query : {} }", latency: latencyReads},
		"drop":             {handler: msgDrop, help: "drop a collection\n{drop : <collectionName>}"},
		"dropDatabase":     {handler: msgDropDatabase, help: "drop (delete) this database"},
		"dropIndexes":      {handler: msgDropIndexes, help: "drop indexes for a collection"},
		"endSessions":      {handler: msgEndSessions, help: "end a set of logical sessions"},
		"explain":          {handler: msgExplain, help: "explain database reads and writes"},
		"find":             {handler: msgFind, help: "query for documents", opCounted: true, latency: latencyReads},
		"findAndModify":    {handler: msgFindAndModify, help: "{ findAndModify: \"collection\", query: {processed:false}, update: {$set: {processed:true}}, new: true}\n{ findAndModify: \"collection\", query: {processed:false}, remove: true, sort: {priority:-1}}\nEither update or remove is required, all other fields have default values.\nOutput is in the \"value\" field\n", latency: latencyWrites},
		"findandmodify":    {handler: msgFindAndModify, help: "{ findAndModify: \"collection\", query: {processed:false}, update: {$set: {processed:true}}, new: true}\n{ findAndModify: \"collection\", query: {processed:false}, remove: true, sort: {priority:-1}}\nEither update or remove is required, all other fields have default values.\nOutput is in the \"value\" field\n", latency: latencyWrites},
		"getCmdLineOpts":   {handler: msgGetCmdLineOpts, help: "get argv", adminOnly: true},
		"getLog":           {handler: msgGetLog, help: "{ getLog : '*' }  OR { getLog : 'global' }", adminOnly: true},
		"getMore":          {handler: msgGetMore, help: "retrieve more results from an existing cursor", opCounted: true, latency: latencyReads},
		"getParameter":     {handler: msgGetParameter, help: "get administrative option(s)\nexample:\n{ getParameter:1, notablescan:1 }\n{ getParameter:'*' } to get everything\n", adminOnly: true},
		"hello":            {handler: msgHello, help: "Check if this server is primary for a replica set\n{ hello : 1 }"},
		"hostInfo":         {handler: msgHostInfo, help: "returns information about the daemon's host"},
		"insert":           {handler: msgInsert, help: "insert documents", opCounted: true, latency: latencyWrites},
		"isMaster":         {handler: msgHello, help: "Check if this server is primary for a replica set\n{ isMaster : 1 }"},
		"ismaster":         {handler: msgHello, help: "Check if this server is primary for a replica set\n{ isMaster : 1 }"},
		"killCursors":      {handler: msgKillCursors, help: "Kill a list of cursor ids"},
		"killOp":           {handler: msgKillOp, help: "no help defined", adminOnly: true},
		"killSessions":     {handler: msgKillSessions, help: "kill a logical session and its operations"},
		"listCollections":  {handler: msgListCollections, help: "list collections for this db"},
		"listCommands":     {handler: msgListCommands, help: "get a list of all db commands"},
		"listDatabases":    {handler: msgListDatabases, help: "{ listDatabases:1, [filter: <filterObject>] [, nameOnly: true ] }\nlist databases on this server", adminOnly: true},
		"listIndexes":      {handler: msgListIndexes, help: "list indexes for a collection"},
		"ping":             {handler: msgPing, help: "a way to check that the server is alive. responds immediately even if server is in a db lock."},
		"renameCollection": {handler: msgRenameCollection, help: " example: { renameCollection: foo.a, to: bar.b }", adminOnly: true},
		"serverStatus":     {handler: msgServerStatus, help: "returns lots of administrative server statistics"},
		"setParameter":     {handler: msgSetParameter, help: "set administrative option(s)\n{ setParameter:1, <param>:<value> }\n", adminOnly: true},
		"update":           {handler: msgUpdate, help: "update documents", opCounted: true, latency: latencyWrites},
		"whatsmyuri":       {handler: msgWhatsMyURI, help: "{whatsmyuri:1}"},
	}
	for name, help := range replSetCommands {
		commandTable[name] = &command{handler: msgReplSet, help: help, adminOnly: true}
	}
	for name := range commandTable {
		commandNames = append(commandNames, name)
	}
	slices.Sort(commandNames)
}
