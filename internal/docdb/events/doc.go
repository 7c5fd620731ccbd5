// Package events is the document database's durable change log: every
// committed change of a document (insert, update, replace, delete) and of
// the catalog (create, drop, rename, dropDatabase, and the expanded events
// createIndexes, dropIndexes and modify, with their operation descriptions:
// ddl.go) as one record in its own keyspace, written in the same storage
// batch as the change itself, so the log holds exactly the changes that
// committed.
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
//   - A record holds the namespace, the document key and the expiry cause
//     of deletions made by the expiry engine, and no document bytes. The
//     records of one batch are one entry, and a document change that
//     follows one of the same collection in its entry leaves the
//     namespace out: it is the previous record's. What
//     an event shows of documents (the post-image of inserts and replaces,
//     the update description of updates, computed from the document before
//     and after, and the images when the collection asks for them) is
//     content, kept in an entry of its own beside the record.
//   - An insert's record refers to the document as stored: a few bytes
//     (not BSON: insert_record.go) of its collection id, encoded _id and a
//     hash of its bytes; its content id is its own sequence number and its
//     document key is read from the document it shows. The write that next
//     updates, replaces or deletes the document, or drops its collection,
//     first copies the document as it was into the insert's content, in
//     its own batch; until then the insert costs no copy. That write finds
//     the insert from the log itself (insertIndex, built from the records
//     when such a write asks), so an insert keeps nothing in memory; once
//     as many inserts whose content may be kept refer to their document
//     as the index holds, inserts keep their document as content at once.
//   - Records are kept by age and by size (Retention, MaxBytes); content
//     only for ContentRetention, a quarter of the purge bound, so that a
//     deleted document's bytes leave every file within it. Trimming is one
//     range deletion each, run in the background; an event whose content
//     is gone is not shown (ErrContentLost): its stream has lost history.
package events
