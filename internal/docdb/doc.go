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
//	PrefixCatalog  'd' dbname                      -> database record
//	PrefixCatalog  'c' dbname 0x00 collname        -> collection record (id, uuid, options, indexes)
//	PrefixCatalog  'n'                             -> next numeric id (collections and indexes share it)
//	PrefixDocument [collection id u64][keycodec(_id)]        -> document, raw BSON as the client sent it
//	PrefixIndex    [index id u64][keycodec(parts)][keycodec(_id)] -> empty
//
// The catalog is read once at Open and cached; every catalog change is one
// storage batch, applied to the cache only after it commits. A document and
// all of its index entries are written in one batch, under the collection's
// write lock, so unique checks and index maintenance never race.
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
