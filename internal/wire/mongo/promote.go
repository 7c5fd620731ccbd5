package mongo

import (
	"fmt"

	"github.com/mayfly/mayfly/internal/docdb/session"
)

// Promoted brings the server's in-memory state up to what the store holds
// when this member becomes primary of its replica set: while it was a
// secondary, the primary's retryable writes and cluster-time bound arrived
// through replication without passing through this server.
//
// Every session known to this process resumes the transaction number of
// its stored retry records, so a driver retrying a write that committed on
// the old primary is answered from the record instead of running the write
// again; the cluster clock restarts at the stored bound, above every time
// the old primary handed out.
func (s *Server) Promoted() error {
	var all []*session.Session
	s.sessions.Each(func(sess *session.Session) { all = append(all, sess) })
	var err error
	for _, sess := range all {
		sess.Lock()
		txn, ok, e := s.db.LatestTxnNumber([]byte(sess.Key()))
		if e == nil {
			if ok && txn > sess.TxnNumber() {
				s.endTxn(sess, session.TxnAborted)
			}
			sess.Resume(txn, ok)
		} else if err == nil {
			err = fmt.Errorf("mongo: resume session after promotion: %w", e)
		}
		sess.Unlock()
	}
	if e := s.clock.reload(); e != nil && err == nil {
		err = e
	}
	return err
}
