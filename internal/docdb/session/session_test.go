package session

import (
	"errors"
	"testing"
	"time"
)

func TestTxnNumberSteps(t *testing.T) {
	r := New(30 * time.Minute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, created := r.Use([]byte("id"), []byte("uid"), now)
	if !created {
		t.Fatal("first use did not create the session")
	}
	steps := []struct {
		txn      int64
		step     Step
		previous int64
		tooOld   bool
	}{
		{txn: 1, step: StepNew, previous: -1},
		{txn: 1, step: StepRetry, previous: 1},
		{txn: 5, step: StepNew, previous: 1},
		{txn: 3, tooOld: true},
		{txn: 5, step: StepRetry, previous: 5},
	}
	for _, st := range steps {
		step, prev, err := s.Begin(st.txn)
		var old *TooOldError
		if st.tooOld {
			if !errors.As(err, &old) || old.Requested != st.txn || old.Current != 5 {
				t.Fatalf("Begin(%d) = %v, want too old", st.txn, err)
			}
			continue
		}
		if err != nil || step != st.step || prev != st.previous {
			t.Fatalf("Begin(%d) = %v %d %v, want %v %d", st.txn, step, prev, err, st.step, st.previous)
		}
	}
}

func TestResumeAfterRestart(t *testing.T) {
	s := Detached([]byte("id"), []byte("uid"))
	s.Resume(7, true)
	if _, _, err := s.Begin(6); err == nil {
		t.Fatal("a number below the stored one was accepted")
	}
	if step, _, _ := s.Begin(7); step != StepRetry {
		t.Fatal("the stored number is not a retry")
	}
}

func TestIdleSessions(t *testing.T) {
	r := New(30 * time.Minute)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.Use([]byte("a"), nil, t0)
	r.Use([]byte("b"), nil, t0.Add(10*time.Minute))
	if idle := r.Idle(t0.Add(30 * time.Minute)); len(idle) != 0 {
		t.Fatalf("%d idle at exactly the timeout", len(idle))
	}
	idle := r.Idle(t0.Add(31 * time.Minute))
	if len(idle) != 1 || string(idle[0].ID()) != "a" || r.Len() != 1 {
		t.Fatalf("idle %v, %d left", idle, r.Len())
	}
	if ended := r.End([][]byte{[]byte("b")}); len(ended) != 1 || r.Len() != 0 {
		t.Fatalf("End: %v, %d left", ended, r.Len())
	}
}

// Ensure that a session resumed at a higher number forgets the state of
// its older transaction, and that a transaction restarted at its own
// number keeps the number it replaces.
func TestResumeForgetsOlderTransaction(t *testing.T) {
	s := Detached([]byte("id"), []byte("uid"))
	s.StartTxn(3, nil, time.Time{})
	s.Txn().State = TxnAborted
	s.Resume(4, true)
	if s.TxnNumber() != 4 || s.Txn().State != TxnNone {
		t.Fatalf("resumed at 4: number %d, state %v", s.TxnNumber(), s.Txn().State)
	}
	s.StartTxn(5, nil, time.Time{})
	s.StartTxn(5, nil, time.Time{})
	if s.Txn().Previous != 4 {
		t.Fatalf("transaction 5 started twice replaces %d, want 4", s.Txn().Previous)
	}
	s.Resume(5, true)
	if s.Txn().State != TxnInProgress {
		t.Fatalf("resumed at its own number: state %v", s.Txn().State)
	}
}
