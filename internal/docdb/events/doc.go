// Package events is the document database's durable change log: every
// committed change of a document (insert, update, replace, delete) and of
// the catalog (create, drop, rename, dropDatabase) as one record in its own
// keyspace, written in the same storage batch as the change itself, so the
// log holds exactly the changes that committed.
//
// Rules:
//
//   - A record's key is its sequence number: a cluster time (Unix seconds
//     in the high 32 bits, an increment in the low 32) that only grows,
//     across restarts too (Open continues after the last record). It is the
//     core of a change stream's resume token.
//   - Sequence numbers are given when a batch commits, in commit order of
//     the log's lock; a reader sees a record only once every record with a
//     smaller number has committed or failed (Visible), so a reader that
//     went past a number never misses one below it.
//   - A record holds what change events need: namespace, document key,
//     the post-image of inserts and replaces, the update description of
//     updates (computed from the document before and after), the pre-image
//     when the collection asks for it, and the expiry cause of deletions
//     made by the expiry engine.
//   - Retention is bounded by age and by size; Trim deletes the oldest
//     records by one range deletion, and Run calls it in the background.
package events
