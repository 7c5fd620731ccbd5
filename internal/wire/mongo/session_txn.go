package mongo

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/session"
)

// Error labels MongoDB attaches for drivers' retry loops.
const (
	labelTransient     = "TransientTransactionError"
	labelUnknownCommit = "UnknownTransactionCommitResult"
	labelRetryable     = "RetryableWriteError"
)

// retryableCodes are the errors after which MongoDB labels a retryable
// write RetryableWriteError: the server was shutting down or stepping
// down, so the write may be sent again.
var retryableCodes = map[mongoerr.Code]bool{
	mongoerr.InterruptedAtShutdown: true, mongoerr.InterruptedDueToReplStateChange: true,
	mongoerr.NotWritablePrimary: true, mongoerr.NotPrimaryNoSecondaryOk: true,
	mongoerr.NotPrimaryOrSecondary: true, mongoerr.PrimarySteppedDown: true,
	mongoerr.ShutdownInProgress: true, mongoerr.HostNotFound: true, mongoerr.HostUnreachable: true,
	mongoerr.NetworkTimeout: true, mongoerr.SocketException: true, mongoerr.ExceededTimeLimit: true,
}

// defaultTxnLifetime is transactionLifetimeLimitSeconds' default.
const defaultTxnLifetime = 60

// txnCommands are the commands a multi-document transaction runs, as in
// MongoDB 7.0 (createCollection and createIndexes included, as since 4.4).
var txnCommands = map[string]bool{
	"find": true, "getMore": true, "killCursors": true, "aggregate": true, "distinct": true,
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"create": true, "createIndexes": true,
	"commitTransaction": true, "abortTransaction": true,
}

// txnMetrics are serverStatus' transactions counters.
type txnMetrics struct {
	currentOpen, totalStarted, totalCommitted, totalAborted atomic.Int64
	// currentActive counts the transactions' statements running now.
	currentActive atomic.Int64
}

// txnArgs are a command's transaction fields.
type txnArgs struct {
	hasAutocommit    bool
	autocommit       bool
	startTransaction bool
	hasStart         bool
	// readConcern and writeConcern say whether the command has them.
	readConcern, writeConcern bool
}

// parseTxnArg reads autocommit or startTransaction.
func parseTxnArg(a *txnArgs, key string, v bson.RawValue) error {
	b, ok := v.BooleanOK()
	if !ok {
		return typeMismatch("OperationSessionInfo", key, v.Type, "bool")
	}
	switch key {
	case "autocommit":
		a.hasAutocommit, a.autocommit = true, b
	case "startTransaction":
		a.hasStart, a.startTransaction = true, b
	}
	return nil
}

// withLabels returns err as a MongoDB error carrying errorLabels.
func withLabels(e *mongoerr.Error, labels ...string) *mongoerr.Error {
	info := make(map[string]any, len(e.Info)+1)
	for k, v := range e.Info {
		info[k] = v
	}
	arr := make(bson.A, len(labels))
	for i, l := range labels {
		arr[i] = l
	}
	info["errorLabels"] = arr
	return &mongoerr.Error{Code: e.Code, Message: e.Message, Info: info}
}

// writeConflict is MongoDB's WriteConflict in a transaction.
func writeConflict() *mongoerr.Error {
	return withLabels(errorf(mongoerr.WriteConflict,
		"WriteConflict error: this operation conflicted with another operation. Please retry your operation or multi-document transaction."), labelTransient)
}

// noSuchTransaction is NoSuchTransaction, which drivers retry whole.
func noSuchTransaction(format string, args ...any) *mongoerr.Error {
	return withLabels(errorf(mongoerr.NoSuchTransaction, format, args...), labelTransient)
}

// txnLifetime is transactionLifetimeLimitSeconds.
func (s *Server) txnLifetime() time.Duration {
	return time.Duration(s.txnLifetimeSecs.Load()) * time.Second
}

// txnParameter is the transactionLifetimeLimitSeconds server parameter.
func (s *Server) txnParameter() Parameter {
	return Parameter{
		Name: "transactionLifetimeLimitSeconds",
		Get:  func() any { return int32(s.txnLifetimeSecs.Load()) },
		Set: func(v any) error {
			n, ok := toInt64(v)
			if !ok || n < 1 {
				return errorf(mongoerr.BadValue, "'%v' is not a valid value for transactionLifetimeLimitSeconds: must be greater than or equal to 1", v)
			}
			s.txnLifetimeSecs.Store(n)
			return nil
		},
	}
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	}
	return 0, false
}

// txnStatus is serverStatus' transactions section.
func (s *Server) txnStatus() bson.D {
	m := &s.txnMetrics
	open, active := m.currentOpen.Load(), m.currentActive.Load()
	return bson.D{
		{Key: "retriedCommandsCount", Value: s.metrics.retriedCommands.Load()},
		{Key: "retriedStatementsCount", Value: s.metrics.retriedCommands.Load()},
		{Key: "transactionsCollectionWriteCount", Value: int64(0)},
		{Key: "currentActive", Value: active},
		{Key: "currentInactive", Value: max(open-active, 0)},
		{Key: "currentOpen", Value: open},
		{Key: "totalAborted", Value: m.totalAborted.Load()},
		{Key: "totalCommitted", Value: m.totalCommitted.Load()},
		{Key: "totalStarted", Value: m.totalStarted.Load()},
	}
}

// endTxn ends the session's open transaction (committed or not) and the
// cursors it opened. The caller holds sess.
func (s *Server) endTxn(sess *session.Session, state session.TxnState) {
	tr := sess.Txn()
	if tr.State != session.TxnInProgress {
		return
	}
	if t, ok := tr.Handle.(*docdb.Txn); ok && !t.Done() {
		t.Abort()
	}
	s.cursors.killSessions([][]byte{sess.ID()})
	tr.State, tr.Handle = state, nil
	s.txnMetrics.currentOpen.Add(-1)
	if state == session.TxnAborted {
		s.txnMetrics.totalAborted.Add(1)
	} else {
		s.txnMetrics.totalCommitted.Add(1)
	}
}

// txnStep runs the checks of a statement with autocommit: false: it starts
// the transaction on startTransaction, or continues the session's open
// one, and returns the context the statement runs in. done is set when
// the reply is already known (a commit retried after it succeeded). The
// caller holds sess.
func (c *conn) txnStep(ctx context.Context, req *request, sess *session.Session, sa *sessionArgs, ta *txnArgs) (context.Context, bool, error) {
	if !sa.hasTxn {
		return nil, false, errorf(mongoerr.InvalidOptions, "'autocommit' field requires a transaction number to also be specified")
	}
	if ta.autocommit {
		return nil, false, errorf(mongoerr.InvalidOptions, "Specifying autocommit=true is not allowed.")
	}
	if ta.hasStart && !ta.startTransaction {
		return nil, false, errorf(mongoerr.InvalidOptions, "Specifying startTransaction=false is not allowed.")
	}
	if !txnCommands[req.name] {
		return nil, false, errorf(mongoerr.OperationNotSupportedInTransaction, "Cannot run '%s' in a multi-document transaction.", req.name)
	}
	if ta.writeConcern && req.name != "commitTransaction" && req.name != "abortTransaction" {
		return nil, false, errorf(mongoerr.InvalidOptions, "writeConcern is not allowed within a multi-statement transaction")
	}
	if ta.readConcern && !ta.startTransaction {
		return nil, false, errorf(mongoerr.InvalidOptions, "Only the first command in a transaction may specify a readConcern")
	}
	n := sa.txnNumber
	cur := sess.TxnNumber()
	tr := sess.Txn()
	if n < cur {
		kind := "retryable write"
		if tr.State != session.TxnNone {
			kind = "transaction"
		}
		return nil, false, errorf(mongoerr.TransactionTooOld,
			"Cannot start transaction with { txnNumber: %d } on session %s because a newer %s with txnNumberAndRetryCounter { txnNumber: %d, txnRetryCounter: 0 } has already started on this session.",
			n, sessionName(sess), kind, cur)
	}
	now := c.s.now()
	if tr.State == session.TxnInProgress && n == cur && now.Sub(tr.Started) > c.s.txnLifetime() {
		c.s.endTxn(sess, session.TxnAborted)
	}
	if ta.startTransaction {
		if n == cur && (tr.State != session.TxnInProgress || !tr.Unstarted) {
			return nil, false, errorf(mongoerr.ConflictingOperationInProgress,
				"Cannot start a transaction at given transaction number %d a transaction with the same number is in state %s", n, tr.State)
		}
		c.s.endTxn(sess, session.TxnAborted)
		sess.StartTxn(n, c.s.db.BeginTxn(), now)
		c.s.txnMetrics.totalStarted.Add(1)
		c.s.txnMetrics.currentOpen.Add(1)
		tr = sess.Txn()
	} else if n > cur || tr.State == session.TxnNone {
		// The current number's transaction may have committed before a
		// restart, or on the primary this member took over from: its
		// record says so.
		committed := false
		if n == cur {
			var err error
			if committed, err = c.s.db.TxnCommitted([]byte(sess.Key()), n); err != nil {
				return nil, false, err
			}
		}
		if !committed {
			return nil, false, noSuchTransaction("Given transaction number %d does not match any in-progress transactions. The active transaction number is %d", n, cur)
		}
		tr.State = session.TxnCommitted
	}
	switch tr.State {
	case session.TxnAborted:
		if req.name == "abortTransaction" {
			return nil, false, noSuchTransaction("Transaction with { txnNumber: %d } has been aborted.", n)
		}
		return nil, false, noSuchTransaction("Transaction with { txnNumber: %d } has been aborted.", n)
	case session.TxnCommitted:
		if req.name == "commitTransaction" {
			return nil, true, nil
		}
		return nil, false, errorf(mongoerr.TransactionCommitted, "Transaction with { txnNumber: %d } has been committed.", n)
	}
	t := tr.Handle.(*docdb.Txn)
	req.txn = t
	req.sess = sess
	return docdb.WithTxn(ctx, t), false, nil
}

// afterTxnStatement aborts the transaction when its statement failed, as
// MongoDB does, and gives a write conflict its label.
func (c *conn) afterTxnStatement(req *request, out bson.D, err error) (bson.D, error) {
	if req.sess == nil || req.name == "commitTransaction" || req.name == "abortTransaction" {
		return out, err
	}
	failed := err != nil
	for _, e := range out {
		if e.Key == "writeErrors" {
			failed = true
		}
	}
	if failed {
		c.s.endTxn(req.sess, session.TxnAborted)
	}
	if errors.Is(err, docdb.ErrWriteConflict) {
		return nil, writeConflict()
	}
	return out, err
}

// msgCommitTransaction answers commitTransaction: the transaction's
// writes commit atomically, or fail with WriteConflict (and nothing is
// written).
func msgCommitTransaction(_ context.Context, c *conn, req *request) (bson.D, error) {
	if req.sess == nil {
		if req.done {
			return bson.D{}, nil
		}
		return nil, errorf(mongoerr.InvalidOptions, "commitTransaction must be run within a transaction")
	}
	req.txn.RecordCommit([]byte(req.sess.Key()), req.sess.TxnNumber(), req.sess.Txn().Previous)
	err := req.txn.Commit()
	switch {
	case err == nil:
		c.s.endTxn(req.sess, session.TxnCommitted)
		return bson.D{}, nil
	case errors.Is(err, docdb.ErrWriteConflict):
		c.s.endTxn(req.sess, session.TxnAborted)
		return nil, writeConflict()
	default:
		c.s.endTxn(req.sess, session.TxnAborted)
		return nil, withLabels(errorf(mongoerr.InternalError, "%s", fmt.Sprint(err)), labelUnknownCommit)
	}
}

// msgAbortTransaction answers abortTransaction: the transaction's writes
// are discarded.
func msgAbortTransaction(_ context.Context, c *conn, req *request) (bson.D, error) {
	if req.sess == nil {
		return nil, errorf(mongoerr.InvalidOptions, "abortTransaction must be run within a transaction")
	}
	c.s.endTxn(req.sess, session.TxnAborted)
	return bson.D{}, nil
}

// reapTxns aborts the transactions open longer than
// transactionLifetimeLimitSeconds.
func (s *Server) reapTxns() {
	now := s.now()
	limit := s.txnLifetime()
	var old []*session.Session
	s.sessions.Each(func(sess *session.Session) { old = append(old, sess) })
	for _, sess := range old {
		if !sess.TryLock() {
			continue
		}
		if tr := sess.Txn(); tr.State == session.TxnInProgress && now.Sub(tr.Started) > limit {
			s.endTxn(sess, session.TxnAborted)
		}
		sess.Unlock()
	}
}

// idleTxnOps are currentOp's documents for the open transactions no
// command is running in (type "idleSession"), in MongoDB's fields.
func (s *Server) idleTxnOps(now time.Time) []bson.D {
	var sessions []*session.Session
	s.sessions.Each(func(sess *session.Session) { sessions = append(sessions, sess) })
	var out []bson.D
	for _, sess := range sessions {
		if !sess.TryLock() {
			continue
		}
		tr := sess.Txn()
		if tr.State == session.TxnInProgress {
			open := max(now.Sub(tr.Started), 0)
			out = append(out, bson.D{
				{Key: "type", Value: "idleSession"},
				{Key: "host", Value: s.host},
				{Key: "desc", Value: "inactive transaction"},
				{Key: "active", Value: false},
				{Key: "currentOpTime", Value: opTime(now)},
				{Key: "lsid", Value: sessionRecordID(sess)},
				{Key: "transaction", Value: bson.D{
					{Key: "parameters", Value: bson.D{
						{Key: "txnNumber", Value: sess.TxnNumber()},
						{Key: "autocommit", Value: false},
					}},
					{Key: "startWallClockTime", Value: opTime(tr.Started)},
					{Key: "timeOpenMicros", Value: open.Microseconds()},
					{Key: "timeActiveMicros", Value: int64(0)},
					{Key: "timeInactiveMicros", Value: open.Microseconds()},
					{Key: "expiryTime", Value: opTime(tr.Started.Add(s.txnLifetime()))},
				}},
				{Key: "waitingForLock", Value: false},
				{Key: "locks", Value: bson.D{}},
				{Key: "lockStats", Value: bson.D{}},
			})
		}
		sess.Unlock()
	}
	return out
}
