package mongo

import (
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// labelResumableChangeStream is the label a change stream's getMore error
// carries when the driver may resume the stream after it.
const labelResumableChangeStream = "ResumableChangeStreamError"

// labelNonResumableChangeStream is the label of a change stream error
// after which the stream cannot be resumed.
const labelNonResumableChangeStream = "NonResumableChangeStreamError"

// resumableChangeStreamCode reports whether a change stream's driver may
// resume after a getMore error with code: the network, not-primary,
// shutdown and retriable errors, RetryChangeStream, FailedToSatisfyReadPreference
// and StaleEpoch.
func resumableChangeStreamCode(code mongoerr.Code) bool {
	switch code {
	case mongoerr.HostUnreachable, mongoerr.HostNotFound, mongoerr.NetworkTimeout,
		mongoerr.ShutdownInProgress, mongoerr.FailedToSatisfyReadPreference, mongoerr.StaleEpoch,
		mongoerr.PrimarySteppedDown, mongoerr.RetryChangeStream, mongoerr.ExceededTimeLimit,
		mongoerr.SocketException, mongoerr.NotWritablePrimary, mongoerr.InterruptedAtShutdown,
		mongoerr.InterruptedDueToReplStateChange, mongoerr.NotPrimaryNoSecondaryOk,
		mongoerr.NotPrimaryOrSecondary:
		return true
	}
	return false
}

// withChangeStreamLabel adds NonResumableChangeStreamError to err, an error
// of a change stream's getMore, when its code says the stream cannot go on
// (ChangeStreamFatalError, ChangeStreamHistoryLost), as MongoDB does.
func withChangeStreamLabel(err error) error {
	e, ok := mongoerr.As(err)
	if !ok || e.Info["errorLabels"] != nil {
		return err
	}
	if e.Code == mongoerr.ChangeStreamFatalError || e.Code == mongoerr.ChangeStreamHistoryLost {
		return withLabels(e, labelNonResumableChangeStream)
	}
	return err
}
