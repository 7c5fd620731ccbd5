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
// Storage layout (keyspaces from internal/storage):
//
//	PrefixCatalog  'c' db 0x00 coll                   -> collection record, BSON (id, uuid, options, index specs)
//	PrefixCatalog  'n'                                -> next numeric id (collections and indexes share it)
//	PrefixCatalog  's' [collection id u64]            -> counters (documents, bytes, keys and bytes per index)
//	PrefixDocument [collection id u64][keycodec(_id)] -> document, raw BSON as the client sent it
//	PrefixIndex    [index id u64][keycodec(part)...][keycodec(_id)] -> empty
//
// A database exists while it has a collection. The _id_ index has no
// entries of its own: the documents, keyed by _id, are that index (so a
// collection scan returns documents in _id order). Renaming a collection,
// even to another database, rewrites only its catalog record.
//
// The catalog is read once at Open and cached; every catalog change is one
// storage batch, applied to the cache only after it commits. A document, all
// of its index entries and the collection's counters are written in one
// batch, under the collection's write lock, so unique checks, index
// maintenance and statistics never race.
//
// Reads (find, count, distinct, aggregate, and the matching phase of
// writes) plan one access path (plan.go): a collection scan or one index
// scanned within bounds from the filter's predicates, possibly in sort
// order; every fetched document is matched against the whole filter again.
//
// Reads run on a storage snapshot. Strict visibility: every read path (find,
// getMore, count, distinct, aggregate, the matching phase of update, delete
// and findAndModify, and unique-key conflicts) treats a document as absent
// once a TTL index of its collection says it has expired at Options.Now(),
// even before the expiry engine deletes it. VisibilityLazy turns this off and
// gives MongoDB's behaviour (expired documents stay visible until reaped).
//
// # Testing
//
// Tests run on an in-memory store (storage.Options.InMemory) with a fake
// clock. Check verifies that index entries and documents agree; a rapid
// metamorphic test compares every eligible index plan with a collection scan.
package docdb
