// Package change is how features follow document writes: a Hook is told of
// every document the engine inserts, replaces or deletes, inside the
// storage Batch of the write, so what it adds to the batch commits
// atomically with the document.
//
// Rules: hooks run under the collection's write lock, after the document
// and its index entries are in the batch; they may add writes and ask for
// an expiry wake-up, but never commit or close the batch; an error aborts
// the write. Hooks are registered when the engine opens and never change.
package change
