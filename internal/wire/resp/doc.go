// Package resp serves the Redis protocol (RESP2 and RESP3) on top of kv.
//
// # Design
//
// The codec is separate from the transport. ParseCommand is a pure function
// over a byte slice (multibulk and inline requests, Redis's limits and
// protocol errors), and Writer appends replies in the client's protocol
// version (maps, sets, doubles, booleans and pushes degrade to RESP2 as
// Redis does).
//
// A connection reads what the socket has, parses every complete request in
// it, runs them all inside one kv.Tx (one storage batch, one lock
// acquisition), commits, and flushes all the replies with one write: a
// pipeline costs one commit and one syscall. The clock is read once per
// command (kv.Tx.Tick) and not at all between the commands of an EXEC.
// A protocol error answers "-ERR Protocol error: ..." after the replies of
// the requests before it, then closes the connection.
// A connection is read by its own goroutine (conn.go), or with
// Options.EventLoop by one of the epoll loops of eventloop.go, which runs
// its chunks in place and hands a chunk that may wait to a goroutine.
//
// Commands live in a table (table.go, commands.go): each is declared with a
// keyed cmdSpec (name, arity, Redis flags, key positions, ACL categories
// and documentation), so COMMAND, COMMAND INFO|DOCS|LIST|COUNT|GETKEYS
// answer from it. Each command is one file, cmd_<name>.go, holding its
// table entry and handler. Handlers write their reply or return an error;
// errors become replies only here: errors.go holds the one table from kv's
// sentinels to Redis's exact words.
//
// Clients blocked on keys (BLPOP and the other blocking commands) are
// served by the command that fills a key, inside its transaction; inside
// EXEC only once the whole EXEC has run. MONITOR streams every command's
// line through the same per-connection pusher as pub/sub. SAVE, BGSAVE and
// SHUTDOWN sync the storage's log, since every write is already in it.
//
// CONFIG knows every parameter of Redis 7.0 (config_params.go: names,
// aliases, types, ranges, defaults), parses values with Redis's rules and
// error words (config_values.go) and stores each as CONFIG GET shows it
// (config.go); a CONFIG SET of several pairs is checked whole before any
// takes effect. The few parameters mayfly acts on are read where they take
// effect or applied when set; the others are only stored.
//
// Access control is Redis 7.0's ACL (the model in internal/acl; the
// server side in acl_*.go and cmd_acl.go): the catalog of commands and
// categories is built from the command table, each connection holds the
// account it authenticated as, and exec checks the user's rules (the
// command, its keys with the access Redis's key specs give them, its
// channels) after authentication and before MULTI queueing; EXEC checks
// queued commands again and a script's redis.call is checked too.
// requirepass is the default user's password.
//
// Pub/sub messages and keyspace notifications are queued on each receiver
// and written by a per-connection pusher goroutine, never by the
// publisher, so a slow subscriber cannot stall commands; past
// Options.PushBufferLimit it is disconnected, like Redis's pubsub output
// buffer limit. kv reports each commit's keyspace events and touched keys
// to the server (observer in pubsub.go): events become PUBLISHes on
// __keyspace@N__ and __keyevent@N__ channels as notify-keyspace-events
// asks, touched keys invalidate WATCH. Client-side caching (tracking.go)
// rides on the same touches: a tracking client's read-only commands
// record Read touches, so that reads and changes of one commit are handled
// in the order they happened, and invalidations are queued like pub/sub
// messages. Shard channels (SSUBSCRIBE, SPUBLISH) are a namespace of
// their own in the same hub.
//
// DUMP and RESTORE convert between kv's whole values (kv.Tx.ReadValue,
// kv.Tx.Restore) and package rdb's serialized format, which also decides
// OBJECT ENCODING's answer from a value's size and the CONFIG limits. The
// slow log (slowlog.go) records each command after it ran, from the same
// timing as INFO commandstats.
//
// # Testing
//
// Codec tests feed tables and random splits to ParseCommand, and
// FuzzRESPParse checks that nothing panics and that every parsed request
// re-encodes to one that parses the same. Protocol tests start a Server on
// 127.0.0.1:0 in-process and drive it with go-redis and raw sockets, with
// kv's clock injected so expiry needs no sleeping.
package resp
