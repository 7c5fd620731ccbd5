package docdb

import (
	"context"
	"errors"
	"fmt"
)

// Writes outside a transaction wait for the open transactions that own
// the documents they write, as MongoDB's writes wait behind a
// transaction's document locks: a write statement that reaches a document
// an open transaction wrote is abandoned before it commits anything, waits
// (its collection unlocked) until that transaction commits or aborts, and
// runs again from the start, so it applies to the version the transaction
// left. The wait ends early with the statement's context (maxTimeMS, a
// killOp, a disconnect); a transaction open longer than its lifetime limit
// is aborted by its owner's reaper, which releases the waiters.
//
// A multi-document write that has already committed part of its documents
// (more than one batch) does not wait: it writes the document, and the
// transaction's commit then fails with ErrWriteConflict, as before.

// txnBlockedError is a write outside a transaction that reached a document
// owned by the open transaction txn.
type txnBlockedError struct {
	txn *Txn
}

func (e *txnBlockedError) Error() string {
	return "docdb: document is written by an open transaction"
}

type waitTxnsKey struct{}

// waitingForTxns marks ctx so that the writers made from it wait for the
// transactions owning their documents (see txnBlockedError).
func waitingForTxns(ctx context.Context) context.Context {
	return context.WithValue(ctx, waitTxnsKey{}, true)
}

// waitsForTxns reports whether ctx asks writers to wait for transactions.
func waitsForTxns(ctx context.Context) bool {
	v, _ := ctx.Value(waitTxnsKey{}).(bool)
	return v
}

// gate is called before the writer writes document key k: in a transaction
// it claims k; outside one, when k is owned by an open transaction and the
// writer has committed nothing yet, it fails with txnBlockedError.
func (w *writer) gate(k []byte) error {
	if w.txn != nil {
		return w.txn.claim(k)
	}
	if !w.waitTxns || w.committed {
		return nil
	}
	if t := w.e.txns.owner(k); t != nil {
		return &txnBlockedError{txn: t}
	}
	return nil
}

// owner returns the open transaction that owns document key k, or nil.
func (o *txnOwners) owner(k []byte) *Txn {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.owners[string(k)]
}

// untilTxnsEnd runs the write f outside a transaction, again each time it
// stopped at a document an open transaction owns, once that transaction
// has ended. In a transaction it runs f once.
func untilTxnsEnd[R any](ctx context.Context, f func(context.Context) (R, error)) (R, error) {
	if txnOf(ctx) != nil {
		return f(ctx)
	}
	ctx = waitingForTxns(ctx)
	for {
		res, err := f(ctx)
		var blocked *txnBlockedError
		if !errors.As(err, &blocked) {
			return res, err
		}
		if hook := blocked.txn.e.txns.onWait; hook != nil {
			hook()
		}
		if err := blocked.txn.wait(ctx); err != nil {
			var zero R
			return zero, err
		}
	}
}

// wait returns once the transaction has committed or aborted, or with
// ctx's error when ctx ends first.
func (t *Txn) wait(ctx context.Context) error {
	select {
	case <-t.ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("docdb: wait for a transaction: %w", ctx.Err())
	}
}
