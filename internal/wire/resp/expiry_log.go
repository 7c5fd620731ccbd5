package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
)

// The expiry log (mayfly's own CONFIG parameters): expired-events-stream
// names a stream of database 0 to which kv appends an entry for every key
// and hash field the expiry engine deletes, and expired-events-maxlen
// trims it as XADD MAXLEN ~ would (0: never). Clients blocked reading that
// stream are woken when a commit appends to it, whoever commits: the
// sweeper has no client to serve them.

// applyExpiryLog installs the expiry log's CONFIG parameters in kv.
func (s *Server) applyExpiryLog() {
	key := s.cfg.get("expired-events-stream")
	maxLen, _ := strconv.ParseInt(s.cfg.get("expired-events-maxlen"), 10, 64)
	nodes, _ := strconv.ParseInt(s.cfg.get("stream-node-max-entries"), 10, 64)
	bk := blockKey{srv: s, db: 0, key: key}
	s.kv.SetExpiryLog(kv.ExpiryLog{
		Key:         []byte(key),
		MaxLen:      maxLen,
		NodeEntries: nodes,
		Appended:    func() { nudgeWaiters(bk) },
	})
}

// nudgeWaiters makes every client blocked on k try its keys again.
func nudgeWaiters(k blockKey) {
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	for _, w := range blocking.m[k] {
		select {
		case w.nudge <- struct{}{}:
		default:
		}
	}
}
