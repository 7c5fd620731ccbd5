package session

import (
	"fmt"
	"sync"
	"time"
)

// Session is one logical session.
type Session struct {
	// mu serializes the session's commands.
	mu  sync.Mutex
	key string
	id  []byte
	uid []byte
	// lastUse is guarded by the registry's lock.
	lastUse time.Time
	// The fields below are guarded by mu.
	// txn is the highest transaction number seen; -1 before any.
	txn int64
	// resumed is set once the transaction number stored before a restart
	// was given back.
	resumed bool
	// recorded is when the session's record was last written.
	recorded time.Time
	// txnState is the transaction at txn, if txn is a transaction's.
	txnState Txn
}

// Lock takes the session for one command.
func (s *Session) Lock() { s.mu.Lock() }

// Unlock releases the session.
func (s *Session) Unlock() { s.mu.Unlock() }

// Key is the session's registry key.
func (s *Session) Key() string { return s.key }

// ID is the session's id (lsid.id).
func (s *Session) ID() []byte { return s.id }

// UID is the hash of the session's user (lsid.uid).
func (s *Session) UID() []byte { return s.uid }

// Resumed reports whether the session's stored transaction number was
// given back (or there was none to give); the caller holds the session.
func (s *Session) Resumed() bool { return s.resumed }

// Resume gives the session back the transaction number stored before a
// restart or by another primary (ok false when none was stored): a higher
// number than the session's becomes its current one, with no transaction
// state (the caller has ended any open transaction). The caller holds the
// session.
func (s *Session) Resume(txn int64, ok bool) {
	s.resumed = true
	if ok && txn > s.txn {
		s.txn = txn
		s.txnState = Txn{}
	}
}

// RecordDue reports whether the session's record should be written at
// now: first when need is set, then every interval after it was last
// written (RecordWritten). The caller holds the session.
func (s *Session) RecordDue(now time.Time, interval time.Duration, need bool) bool {
	if s.recorded.IsZero() {
		return need
	}
	return now.Sub(s.recorded) >= interval
}

// Recorded reports whether the session's record was ever written by this
// process; the caller holds the session.
func (s *Session) Recorded() bool { return !s.recorded.IsZero() }

// RecordWritten notes that the session's record was written at now.
func (s *Session) RecordWritten(now time.Time) { s.recorded = now }

// Step is what a write with a transaction number is to its session.
type Step int

const (
	// StepNew is a transaction number higher than any the session saw.
	StepNew Step = iota
	// StepRetry is the session's current transaction number again.
	StepRetry
)

// TooOldError is a transaction number below the session's current one.
type TooOldError struct {
	Requested, Current int64
}

func (e *TooOldError) Error() string {
	return fmt.Sprintf("session: transaction number %d is older than %d", e.Requested, e.Current)
}

// Begin classifies a write with transaction number txn; a new number
// becomes the session's current one, and previous is the one it replaces
// (-1 for none). The caller holds the session.
func (s *Session) Begin(txn int64) (step Step, previous int64, err error) {
	switch {
	case txn < s.txn:
		return 0, 0, &TooOldError{Requested: txn, Current: s.txn}
	case txn == s.txn:
		return StepRetry, s.txn, nil
	}
	previous = s.txn
	s.txn = txn
	s.txnState = Txn{}
	return StepNew, previous, nil
}

// TxnNumber is the session's current transaction number, -1 before any.
func (s *Session) TxnNumber() int64 { return s.txn }

// TxnState is where a session's multi-document transaction is.
type TxnState int

const (
	// TxnNone: the session's current transaction number is no
	// transaction's (a retryable write's, or none).
	TxnNone TxnState = iota
	// TxnInProgress: the transaction is open.
	TxnInProgress
	// TxnCommitted: the transaction committed.
	TxnCommitted
	// TxnAborted: the transaction aborted.
	TxnAborted
)

// String names the state as MongoDB's messages do.
func (s TxnState) String() string {
	switch s {
	case TxnInProgress:
		return "TxnInProgress"
	case TxnCommitted:
		return "TxnCommitted"
	case TxnAborted:
		return "TxnAborted"
	}
	return "TxnNone"
}

// Txn is the session's transaction at its current transaction number.
type Txn struct {
	State TxnState
	// Handle is the open transaction (the caller's type) while
	// InProgress.
	Handle any
	// Started is when the transaction began.
	Started time.Time
	// Unstarted is set until a statement of the transaction has run (one
	// the failCommand fail point failed did not): startTransaction may
	// then begin the same number afresh, as a driver's retry of the first
	// statement does.
	Unstarted bool
	// Previous is the session's transaction number before this
	// transaction's, -1 for none.
	Previous int64
}

// Txn returns the session's transaction; the caller holds the session.
func (s *Session) Txn() *Txn { return &s.txnState }

// StartTxn makes txn the session's current number, a transaction begun at
// started with handle; the caller has ended the previous one and holds
// the session.
func (s *Session) StartTxn(txn int64, handle any, started time.Time) {
	previous := s.txn
	if txn == s.txn {
		previous = s.txnState.Previous
	}
	s.txn = txn
	s.txnState = Txn{State: TxnInProgress, Handle: handle, Started: started, Unstarted: true, Previous: previous}
}

// TryLock takes the session when no command holds it.
func (s *Session) TryLock() bool { return s.mu.TryLock() }
