// Package mongo serves the MongoDB wire protocol over the document database
// (internal/docdb), so that mongosh and the official drivers work against
// mayfly.
//
// # Design
//
// A Server accepts connections on the listeners given to Serve. Each
// connection has a reader goroutine, which reads whole messages (the
// declared length is checked before anything is allocated, and the buffer
// grows only as bytes arrive), and a loop that processes them one at a
// time, in order. The connection's context is cancelled when the client
// disconnects, which aborts the request in progress; Shutdown lets the
// requests in progress finish and answer before it closes the connections.
//
// Messages (header.go, opmsg.go, opquery.go, opcompressed.go) follow
// MongoDB's parsing:
//
//   - OP_MSG: section kind 0 (the body) and kind 1 (document sequences,
//     merged into the command document as arrays), checksumPresent (the
//     CRC-32C is verified), moreToCome (no reply, as for w:0) and
//     exhaustAllowed (an awaitable hello streams its replies, each with
//     moreToCome and in answer to the one before, until one fails, the
//     client goes or the server shuts down; topology.go).
//   - OP_QUERY: only hello, isMaster, ismaster and buildInfo on a "<db>.$cmd"
//     namespace, answered with an OP_REPLY, as MongoDB 6.0+ does; drivers
//     send their first hello this way.
//   - OP_COMPRESSED: hello advertises no compressor; the noop compressor is
//     unwrapped, any other is refused with MongoDB's error.
//   - Every document is validated recursively (bsonvalid.go) before any
//     handler sees it. What MongoDB treats as fatal (an impossible length,
//     an unknown required flag, a bad checksum) closes the connection;
//     everything else gets an error reply when the message asks for one.
//     Other connections are never affected.
//
// Commands dispatch through one sorted table (commands.go) that also
// answers listCommands and keys metrics.commands; each command's handler
// is in its own file, msg_<command>.go. Handlers return the reply's fields
// or an error. A *mongoerr.Error becomes {ok: 0, errmsg, code, codeName}
// with its extra fields (keyPattern, keyValue, errInfo); per-statement write
// failures become writeErrors entries {index, code, keyPattern, keyValue,
// errmsg}. Every command's own shape is parsed here, into the typed
// requests the document model takes (docdb.FindRequest,
// docdb.CreateCollectionRequest, docdb.CollModRequest, docdb.IndexSpec,
// ...): field parsing (args.go) reproduces the errors of MongoDB's IDL
// parser (TypeMismatch, IDLUnknownField, IDLFailedToParse and the numeric
// validators), index specs (index_spec.go) mongod's "Error in
// specification" errors, and insert, update and delete share one parser
// of their fields (writes.go). Handlers never panic on client input; the dispatcher
// recovers once (request.go), logs the command and answers InternalError,
// so a bug in one command costs one reply, not the connection.
//
// # Access control
//
// With Options.Auth (serve --auth) every command entry declares in its
// access field what it needs: served before authentication (hello,
// isMaster, saslStart, saslContinue, authenticate, logout, buildInfo, ping,
// connectionStatus, listCommands, as in MongoDB), an authenticated user
// only (endSessions, whatsmyuri, ...), or actions on its collection, its
// database or the cluster, plus what its document adds (a role's database,
// $out's target, the explained command's needs). Before the handler runs,
// runCommand answers MongoDB's Unauthorized (13): "Command <name>
// requires authentication" without a user, "not authorized on <db> to
// execute command { ... }" for a user lacking a privilege. Under the
// localhost exception (a loopback client while no user exists) an
// unauthenticated client holds MongoDB's default privileges, enough to
// create the first user in admin. A connection authenticates as one user;
// a cursor's getMore is its owner's. The model (credentials, the SCRAM
// conversation, roles, privilege resolution, the failure delay) is
// internal/mongoauth; this package holds the commands: saslStart and
// saslContinue (payload as BinData, conversationId 1, done, the
// skipEmptyExchange option), hello's speculativeAuthenticate and
// saslSupportedMechs, the user and role commands on admin.system.users
// and admin.system.roles (auth_store.go), and connectionStatus. A
// connection resolves its user's privileges once and again only after a
// user or role changed (Server.authGen), so the check of a command is a
// map lookup. A failed authentication is logged with the client's address
// and user (never a password), counted in serverStatus
// security.authentication, and answered after the address's throttle
// delay. Without Auth nothing is checked; the user commands still work.
//
// Documents are passed to and from the document database as raw BSON:
// field order and every BSON type survive a round trip byte for byte.
//
// Cursors (cursors.go) live in a registry by random id. A batch holds at
// most batchSize documents (101 by default for the first batch) and at
// most 16 MiB (documents and their array element headers). A batch that
// reached the end of the results reports id 0 and closes the cursor, as
// does one whose cursor knows it is at its end (a reached limit, a point
// read, in-memory results: docdb.Finisher); a batch full by count
// otherwise leaves the cursor open, and the getMore after it answers an
// empty batch with id 0, as MongoDB's. A document read that did not fit a
// batch's bytes waits for the next batch, and the document database is
// asked again whether it is still visible (strict expiry) before it is
// handed out. A cursor idle for
// CursorTimeout (10 minutes) on the injected clock is closed, as is every
// cursor of a session ended with endSessions or killSessions. Dropping or
// renaming a collection marks its cursors killed (cursors_invalidate.go),
// on a secondary once the catalog reload finds it gone (CollectionsGone):
// their next getMore fails with QueryPlanKilled. A getMore is refused on a
// cursor opened in another session (cursors_session.go).
//
// Sessions (session_use.go, session_txn.go): a command's lsid names a
// session of the registry (internal/docdb/session), held for the
// command's duration so that its commands run one at a time. Sessions
// that must outlive the process (started, refreshed, or retrying writes)
// have a record in config.system.sessions that a TTL index on lastUse
// expires; idle ones are reaped with their cursors, transaction and retry
// records. A txnNumber makes insert, update, delete and findAndModify
// retryable (their reply stored with the write, docdb.Retryable);
// autocommit: false runs the command in the session's transaction
// (docdb.Txn). Every OP_MSG reply carries $clusterTime and operationTime
// from a clock that never goes back (clustertime.go).
//
// Every command in progress is registered under an operation id
// (operations.go) for currentOp and $currentOp, which report it in
// MongoDB's fields, and for killOp, which cancels its context: the command
// then fails with Interrupted.
//
// Server parameters (getParameter, setParameter) come from
// Options.Parameters, so that other components (the expiry engine's
// ttlMonitor* parameters) register theirs; serverStatus sections such as
// metrics.ttl come from Options.Status. The server keeps its own counters
// (metrics.go) and opLatencies (oplatency.go): every command's time, from
// dispatch to reply, in MongoDB's classes and histogram buckets, and for
// reads and writes their collection's too ($collStats latencyStats).
//
// # Test commands
//
// With Options.TestCommands (mongod's enableTestCommands, set at startup
// with --set-parameter enableTestCommands=1) the test-only commands exist:
// configureFailPoint, whose failCommand fail point (failpoint.go) makes the
// named commands fail with an error code and labels, block, close the
// connection or carry a writeConcernError, for a number of activations,
// after skipping some, or always; its failGetMoreAfterCursorCheckout fail
// point (failpoint_getmore.go) fails a getMore and kills its cursor, and
// onPrimaryTransactionalWrite (failpoint_txnwrite.go) loses a retryable
// write's reply or fails it before it is applied; and testVersion2. Without
// it they answer CommandNotFound and listCommands omits them. The drivers'
// specification tests rely on them.
//
// # Testing
//
// The codec has table tests and two fuzz targets (FuzzOpMsg, FuzzOpQuery)
// seeded with handshakes recorded from mongosh 2.12 and the Go driver
// (testdata/recorded): a message that decodes must re-encode to the same
// bytes. Raw TCP tests send every kind of malformed input and check the
// answer and that the server keeps serving. Driver tests start a Server on
// 127.0.0.1:0 over an in-memory document database with a fake clock and
// cover each command's success and error paths, with MongoDB's codes and
// messages. The integration package drives the real binary with the Go
// driver and mongosh.
package mongo
