// Package catalog is what the document database knows about its
// collections and indexes: the stored catalog records, their parsed,
// immutable metadata (CollMeta, IndexMeta), each collection's counters, the
// namespace rules, the storage key layout of documents and index entries,
// and the entries an index has for a document.
//
// Rules:
//
//   - Metadata is immutable. A change builds a new CollMeta (WithIndexes)
//     and swaps it into Collection.Meta; readers keep the one they loaded.
//   - The catalog has no lock of its own. The engine's catalog lock (held
//     for writing to change Catalog or Collection.Meta, for reading to load
//     them with a storage snapshot) guards the Catalog; Collection.WriteMu
//     serializes a collection's writes and is taken before the catalog
//     lock.
//   - Every catalog change is one storage batch (PutRecord, Catalog.AllocID
//     write into it) and is applied to the cache only after it commits.
//   - Counters change only under the collection's write lock: Counters.Stage
//     writes the new values into the batch of the documents they count and
//     returns the in-memory update to run once it has committed.
//
// Storage layout (keyspaces from internal/storage):
//
//	PrefixCatalog  'c' db 0x00 coll                   -> collection record, BSON (id, uuid, options, index specs)
//	PrefixCatalog  'n'                                -> next numeric id (collections and indexes share it)
//	PrefixCatalog  's' [collection id u64]            -> counters (documents, bytes, keys and bytes per index)
//	PrefixDocument [collection id u64][keycodec(_id)] -> document, raw BSON as the client sent it
//	PrefixIndex    [index id u64][keycodec(part)...][keycodec(_id)] -> empty
//	PrefixIndex    [collection id u64] 'o' [sequence u64]   -> keycodec(_id): a capped collection's insertion order
//	PrefixIndex    [collection id u64] 'p' [keycodec(_id)]  -> sequence u64: each document's place in it
//
// The _id_ index has no entries of its own: the documents, keyed by _id,
// are that index.
package catalog
