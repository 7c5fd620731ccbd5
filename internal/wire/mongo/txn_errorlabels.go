package mongo

import (
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// transientTxnCodes are the errors after which a transaction had no lasting
// effect and may be run again whole: conflicts, lock and snapshot errors.
var transientTxnCodes = map[mongoerr.Code]bool{
	mongoerr.WriteConflict: true, mongoerr.LockTimeout: true, mongoerr.PreparedTransactionInProgress: true,
	mongoerr.ShardCannotRefreshDueToLocksHeld: true, mongoerr.StaleDbVersion: true,
	mongoerr.SnapshotTooOld: true, mongoerr.SnapshotUnavailable: true,
	mongoerr.StaleChunkHistory: true, mongoerr.MigrationConflict: true,
}

// isTransientTxnError reports whether a command of a transaction (one with
// autocommit) failing with code gets TransientTransactionError, as MongoDB
// labels it: the transient codes; NoSuchTransaction; for a statement also
// the retriable errors (not primary, shutdown, network), for commit and
// abort only NoSuchTransaction without a write concern error.
func isTransientTxnError(code mongoerr.Code, commitOrAbort bool) bool {
	if transientTxnCodes[code] || code == mongoerr.NoSuchTransaction {
		return true
	}
	return !commitOrAbort && retryableCodes[code]
}

// withTransientTxnLabel adds TransientTransactionError to err, the error of
// a command in a transaction, when MongoDB would and err carries no labels
// of its own (the failCommand fail point's errorLabels replace them).
func withTransientTxnLabel(err error, name string) error {
	e, ok := mongoerr.As(err)
	if !ok || e.Info["errorLabels"] != nil {
		return err
	}
	if !isTransientTxnError(e.Code, name == "commitTransaction" || name == "abortTransaction") {
		return err
	}
	return withLabels(e, labelTransient)
}
