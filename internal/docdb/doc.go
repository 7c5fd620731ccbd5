// Package docdb is mayfly's document database: MongoDB's data model of
// databases, collections, BSON documents and indexes (TTL indexes among them)
// on top of internal/storage.
//
// # Design
//
// The Engine is the whole API. The wire layer (internal/wire/mongo) calls one
// Engine method per command and turns the *mongoerr.Error values it returns
// into replies; every other error is an internal failure.
//
// This package coordinates; each mechanism lives in its own package:
//
//   - catalog: collections and indexes (records, immutable metadata,
//     counters, namespace rules), the storage key layout and the entries an
//     index has for a document;
//   - stored: a document as stored (raw BSON, decoded form, encoded _id);
//   - match: query filters compiled to match documents;
//   - plan: choosing an access path, scanning and matching it, and
//     rendering it for explain;
//   - change: the write hook through which features follow document writes;
//   - policy: TTL policies of collection groups, their long-running
//     operations and the previews of TTL changes (dry runs);
//   - timeseries: the rules of time-series collections (options, buckets,
//     unpacking, the buckets a query's predicates reach);
//   - query, update, aggregate: the query, update and aggregation languages.
//
// The root holds the Engine and what ties these together: the write path
// (write.go: a writer applies documents, index entries and counters in one
// batch and tells the change hooks), the collection and index commands,
// reads and cursors, TTL indexes as expiry sources (ttl.go), clustered and
// time-series collections expiring by key spans (clustered_reap.go,
// timeseries_ttl.go; a clustered collection's spans are counted by the
// aggregates of clustered_spans.go), time-series collections as views of their buckets
// (timeseries.go), strict visibility (visibility.go), and capped
// collections with their tailable cursors (capped*.go).
//
// Locks. The catalog lock (Engine.mu) guards the catalog cache: catalog
// changes commit and update the cache under it held for writing; readers
// take it for reading to load a collection's metadata together with a
// storage snapshot, so the two always agree. A collection's write lock
// (catalog.Collection.WriteMu) is taken before the catalog lock and
// serializes its writes, index builds and catalog changes.
//
// Batches. Every catalog change is one storage batch, applied to the cache
// only after it commits. A document, all of its index entries, the
// collection's counters and whatever the change hooks add (a TTL policy's
// hidden index entries) are written in one batch, under the collection's
// write lock, so unique checks, index maintenance and statistics never race.
// On a replica set member, the single-statement writes of one namespace
// outside a transaction commit in groups, one batch for all (group.go).
//
// Reads (find, count, distinct, aggregate, and the matching phase of
// writes) plan one access path (package plan): a collection scan or one
// index scanned within bounds from the filter's predicates, possibly in sort
// order; every fetched document is matched against the whole filter again.
//
// Reads run on a storage snapshot. Strict visibility: every read path (find,
// getMore, count, distinct, aggregate, the matching phase of update, delete
// and findAndModify, and unique-key conflicts) treats a document as absent
// once a TTL index of its collection, or the TTL policy of its collection
// group, says it has expired at Options.Now(), even before the expiry engine
// deletes it. VisibilityLazy turns this off and gives MongoDB's behaviour
// (expired documents stay visible until reaped). What a cursor holds back
// (a blocking sort's documents, $sort's and $sample's, the document the
// wire layer read ahead, through Rechecker) is checked again when handed
// out.
//
// Transactions (txn.go). A Txn reads the storage snapshot taken when it
// began plus its own writes, through a batch on that snapshot
// (storage.NewSnapshotBatch); the write path runs unchanged on that batch,
// and what a statement would commit (counters, multikey flags, change-log
// records) is staged in the transaction until Commit applies it all in one
// batch under the write locks of every collection written, after checking
// that no committed write changed a document it wrote and no committed
// document took a unique key it added. The first transaction to write a
// document owns it until it ends; a write outside a transaction that
// reaches an owned document is abandoned before it commits anything and
// run again once the owner has ended (txn_wait.go), bounded by its
// context. Reads and writes join a transaction through their context
// (WithTxn). A collection a transaction creates, with its indexes, is the
// transaction's until it commits (txn_ddl.go): its catalog record goes in
// the commit's batch, under Engine.ddl, and a collection of that name
// created outside meanwhile fails the commit.
//
// Retryable writes (retry.go): the reply a retry must get is stored under
// the session and transaction number in the same batch as the write,
// which is then never committed in parts.
//
// A query's memory is bounded (querymem.go): a blocking sort and $sort
// hold at most internalQueryMaxBlockingSortMemoryUsageBytes of documents,
// $group internalDocumentSourceGroupMaxMemoryBytes of groups; past it they
// spill sorted runs to Options.TempDir (internal/docdb/spill) when disk
// use is allowed, and fail with QueryExceededMemoryLimitNoDiskUseAllowed
// otherwise. Stored documents nest at most 180 levels (depth.go).
//
// # Testing
//
// Validate runs Check's per-collection check on one collection (the
// validate command) and reports a violation in its result; Compact
// compacts one collection's key spans in the store.
//
// Tests run on an in-memory store (storage.Options.InMemory) with a fake
// clock. Check verifies that index entries and documents agree; a rapid
// metamorphic test compares every eligible index plan with a collection scan.
package docdb
