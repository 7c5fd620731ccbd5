package docdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/storage"
)

// Retryable makes a write retryable: the reply a retry answers is stored
// in the same storage batch as the write itself, so that the write and its
// record commit together or not at all, and a retry (even after a
// restart) returns the original reply without running the write again.
//
// A retryable write is applied in one batch: it is never committed in
// parts, and an interrupted one commits nothing.
//
// A session keeps the record of its latest transaction number only: a
// newer number's record replaces the older ones, and ForgetRetries drops
// them all when the session ends.
type Retryable struct {
	// Session is the session's key (its id and user's hash).
	Session []byte
	// TxnNumber is the statement's transaction number in the session.
	TxnNumber int64
	// Previous is the session's previous transaction number, whose record
	// this one replaces; negative when it has none.
	Previous int64
	// Reply encodes the reply a retry answers from the write's result (an
	// InsertResult, UpdateResult, DeleteResult or FindAndModifyResult).
	Reply func(result any) (bson.Raw, error)
}

// retryPrefix is the prefix of the records of one session.
func retryPrefix(session []byte) []byte {
	k := make([]byte, 0, 1+4+len(session)+8)
	k = append(k, storage.PrefixRetry)
	k = binary.BigEndian.AppendUint32(k, uint32(len(session)))
	return append(k, session...)
}

// retryKey is the key of a session's record for txnNumber: numbers sort as
// signed integers.
func retryKey(session []byte, txnNumber int64) []byte {
	return binary.BigEndian.AppendUint64(retryPrefix(session), uint64(txnNumber)^1<<63)
}

// committedTxn is the record a committed transaction leaves at its
// session's transaction number, where a retryable write leaves its reply
// (MongoDB's config.transactions entry in state committed): a retried
// commitTransaction finds it after a restart or on a new primary, and it
// replaces the session's older records as a write's does.
var committedTxn = []byte(bsoncore.NewDocumentBuilder().AppendBoolean("committedTransaction", true).Build())

// RetriedReply returns the stored reply of the session's write with
// txnNumber, or nil when none was stored (or txnNumber is a transaction's).
func (e *Engine) RetriedReply(session []byte, txnNumber int64) (bson.Raw, error) {
	v, err := e.retryRecord(session, txnNumber)
	if v == nil || bytes.Equal(v, committedTxn) {
		return nil, err
	}
	return bson.Raw(v), nil
}

// TxnCommitted reports whether the session's transaction txnNumber
// committed, by its stored record.
func (e *Engine) TxnCommitted(session []byte, txnNumber int64) (bool, error) {
	v, err := e.retryRecord(session, txnNumber)
	return bytes.Equal(v, committedTxn), err
}

// retryRecord returns the session's record at txnNumber, or nil.
func (e *Engine) retryRecord(session []byte, txnNumber int64) ([]byte, error) {
	v, err := e.store.Get(retryKey(session, txnNumber))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("docdb: retry record: %w", err)
	}
	return v, nil
}

// LatestTxnNumber returns the highest transaction number the session has a
// stored record of.
func (e *Engine) LatestTxnNumber(session []byte) (txnNumber int64, ok bool, err error) {
	prefix := retryPrefix(session)
	it, err := e.store.NewIter(prefix, storage.PrefixEnd(prefix))
	if err != nil {
		return 0, false, fmt.Errorf("docdb: retry records: %w", err)
	}
	defer it.Close()
	if !it.Last() {
		return 0, false, it.Error()
	}
	k := it.Key()
	if len(k) != len(prefix)+8 {
		return 0, false, fmt.Errorf("docdb: malformed retry record key %x", k)
	}
	return int64(binary.BigEndian.Uint64(k[len(prefix):]) ^ 1<<63), true, nil
}

// ForgetRetries drops the records of a session that ended.
func (e *Engine) ForgetRetries(session []byte) error {
	prefix := retryPrefix(session)
	b := e.store.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(prefix, storage.PrefixEnd(prefix)); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("docdb: forget retry records: %w", err)
	}
	return nil
}

// putRetry adds r's record of result to b, replacing the session's older
// records.
func putRetry(b *storage.Batch, r *Retryable, result any) error {
	reply, err := r.Reply(result)
	if err != nil {
		return fmt.Errorf("docdb: retry reply: %w", err)
	}
	if r.Previous >= 0 && r.Previous != r.TxnNumber {
		if err := b.Delete(retryKey(r.Session, r.Previous)); err != nil {
			return err
		}
	}
	return b.Set(retryKey(r.Session, r.TxnNumber), reply)
}

// recordRetry adds r's record (when r is set) to the writer's batch, which
// the caller commits next.
func (w *writer) recordRetry(r *Retryable, result any) error {
	if r == nil {
		return nil
	}
	return putRetry(w.b, r, result)
}

// recordRetryAlone commits r's record (when r is set) by itself, for a
// write that had no collection to write to.
func (e *Engine) recordRetryAlone(r *Retryable, result any) error {
	if r == nil {
		return nil
	}
	b := e.store.NewBatch()
	defer b.Close()
	if err := putRetry(b, r, result); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("docdb: retry record: %w", err)
	}
	return nil
}
