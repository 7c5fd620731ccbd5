package mongo

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// txnWriteFailPoint is MongoDB's onPrimaryTransactionalWrite fail point,
// set by configureFailPoint (a test command). It acts on retryable writes
// (a write command with a txnNumber outside a transaction), counting one
// activation per command. When it fires, the connection is closed without
// a reply (unless data's closeConnection is false); with data's
// failBeforeCommitExceptionCode the write is not applied and the command
// fails with that code, without it the write is applied, and recorded for
// the retry, before the connection closes.
type txnWriteFailPoint struct {
	mu sync.Mutex
	// mode is "off", "alwaysOn", "times", "skip" or "activationProbability";
	// times and entered are as in failPoint.
	mode    string
	times   int64
	entered int64

	closeConnection  bool
	failBeforeCommit bool
	failBeforeCode   int32
}

// txnWriteAction is what the fail point does to one retryable write.
type txnWriteAction struct {
	fired, closeConnection, failBeforeCommit bool
	failBeforeCode                           int32
}

// configure sets the fail point from configureFailPoint's parsed mode and
// its data document, and returns the activations so far.
func (f *txnWriteFailPoint) configure(mode *failPoint, data bson.Raw) (int64, error) {
	closeConn, failBefore, code := true, false, int32(0)
	if data != nil {
		if v, err := data.LookupErr("closeConnection"); err == nil {
			closeConn = truthy(v)
		}
		if v, err := data.LookupErr("failBeforeCommitExceptionCode"); err == nil {
			n, ok := numberAsInt64(v)
			if !ok || !isNumber(v.Type) {
				return 0, errorf(mongoerr.TypeMismatch, "'failBeforeCommitExceptionCode' must be a number")
			}
			failBefore, code = true, int32(n)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	count := f.entered
	f.mode, f.times = mode.mode, mode.times
	f.closeConnection, f.failBeforeCommit, f.failBeforeCode = closeConn, failBefore, code
	return count, nil
}

// activate reports what the fail point does to one retryable write,
// counting the activation.
func (f *txnWriteFailPoint) activate() txnWriteAction {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch f.mode {
	case "times":
		if f.times <= 0 {
			return txnWriteAction{}
		}
		f.times--
		if f.times == 0 {
			f.mode = "off"
		}
	case "skip":
		if f.times > 0 {
			f.times--
			return txnWriteAction{}
		}
	case "alwaysOn", "activationProbability":
	default:
		return txnWriteAction{}
	}
	f.entered++
	return txnWriteAction{fired: true, closeConnection: f.closeConnection,
		failBeforeCommit: f.failBeforeCommit, failBeforeCode: f.failBeforeCode}
}

// txnWriteFailPoint reports what onPrimaryTransactionalWrite does to req:
// nothing unless test commands are on and req is a retryable write.
func (c *conn) txnWriteFailPoint(req *request) txnWriteAction {
	if !c.s.opts.TestCommands || req.retry == nil {
		return txnWriteAction{}
	}
	return c.s.txnWriteFailPoint.activate()
}

// beforeWrite fails the write before it is applied, when the fail point
// fired with failBeforeCommitExceptionCode.
func (a txnWriteAction) beforeWrite(c *conn) error {
	if !a.fired || !a.failBeforeCommit {
		return nil
	}
	if a.closeConnection {
		c.nc.Close()
	}
	return mongoerr.New(mongoerr.Code(a.failBeforeCode), "Failing write before commit due to 'onPrimaryTransactionalWrite' failpoint")
}

// afterWrite closes the connection once the write was applied, so that its
// reply is lost and the driver retries it.
func (a txnWriteAction) afterWrite(c *conn) error {
	if !a.fired || a.failBeforeCommit || !a.closeConnection {
		return nil
	}
	c.nc.Close()
	return errorf(mongoerr.Location50985, "Failing command due to 'onPrimaryTransactionalWrite' failpoint")
}
