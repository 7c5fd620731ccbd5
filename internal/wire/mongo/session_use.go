package mongo

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/session"
)

// sessionRecordInterval is how often a session in use has its record in
// config.system.sessions written again (its lastUse moved forward), as
// MongoDB's logical session cache refreshes every five minutes.
const sessionRecordInterval = 5 * time.Minute

// sessionsTTLIndex is the name of the TTL index on lastUse that expires
// config.system.sessions records.
const sessionsTTLIndex = "lsidTTLIndex"

// retryableCommands are the commands that may carry a txnNumber outside a
// transaction: their writes execute at most once.
var retryableCommands = map[string]bool{
	"insert": true, "update": true, "delete": true,
	"findAndModify": true, "findandmodify": true,
}

// sessionArgs are a command's session fields: lsid and txnNumber.
type sessionArgs struct {
	lsid      bson.Raw
	id        []byte
	hasTxn    bool
	txnNumber int64
}

// parseSessionArg reads one session field of a command into a.
func parseSessionArg(a *sessionArgs, key string, v bson.RawValue) error {
	switch key {
	case "lsid":
		doc, ok := v.DocumentOK()
		if !ok {
			return typeMismatch("OperationSessionInfo", "lsid", v.Type, "object")
		}
		id, err := doc.LookupErr("id")
		if err != nil {
			return missingField("LogicalSessionId", "id")
		}
		subtype, data, ok := id.BinaryOK()
		if !ok {
			return typeMismatch("LogicalSessionId", "id", id.Type, "binData")
		}
		if subtype != bson.TypeBinaryUUID || len(data) != 16 {
			return errorf(mongoerr.InvalidUUID, "uuid must be a 16-byte binary field with UUID (4) subtype")
		}
		a.lsid, a.id = doc, data
	case "txnNumber":
		if v.Type != bson.TypeInt64 {
			return typeMismatch("OperationSessionInfo", "txnNumber", v.Type, "long")
		}
		a.hasTxn, a.txnNumber = true, v.Int64()
		if a.txnNumber < 0 {
			return errorf(mongoerr.BadValue, "TxnNumber cannot be negative")
		}
	}
	return nil
}

// userHash is lsid.uid of the connection's user: the SHA-256 of its name
// ("user@db", empty without authentication).
func (c *conn) userHash() []byte {
	h := sha256.Sum256([]byte(c.userString()))
	return h[:]
}

// sessionName is how MongoDB names a session in messages: its id and its
// user's hash in base64.
func sessionName(s *session.Session) string {
	id := s.ID()
	return sessionText(id[:], s.UID())
}

// sessionText names the session of id and user hash uid as MongoDB does.
func sessionText(id, uid []byte) string {
	return uuidText(id) + " - " + base64.StdEncoding.EncodeToString(uid)
}

// useSession records the use of the command's session and returns it,
// held (the caller unlocks it), or nil when the command names none. A
// session new to this process is given back the transaction number of
// its stored retry records, and its record in config.system.sessions is
// written when due.
func (c *conn) useSession(ctx context.Context, a *sessionArgs) (*session.Session, error) {
	if a.id == nil {
		if a.hasTxn {
			return nil, errorf(mongoerr.InvalidOptions, "Transaction number requires a session ID to also be specified")
		}
		return nil, nil
	}
	now := c.s.now()
	s, _ := c.s.sessions.Use(a.id, c.userHash(), now)
	s.Lock()
	if err := c.s.prepareSession(ctx, s, now, a.hasTxn); err != nil {
		s.Unlock()
		return nil, err
	}
	return s, nil
}

// prepareSession resumes a session's transaction number after a restart
// and writes its record when due: a session has a record in
// config.system.sessions once it was started with startSession, refreshed,
// or ran a retryable write (record set), and it is rewritten every
// sessionRecordInterval of use; a session only named by lsid lives in
// memory. The caller holds s.
func (s *Server) prepareSession(ctx context.Context, sess *session.Session, now time.Time, record bool) error {
	if !sess.Resumed() {
		txn, ok, err := s.db.LatestTxnNumber([]byte(sess.Key()))
		if err != nil {
			return err
		}
		sess.Resume(txn, ok)
	}
	if !sess.RecordDue(now, sessionRecordInterval, record) {
		return nil
	}
	if err := s.writeSessionRecords(ctx, []*session.Session{sess}, now); err != nil {
		return err
	}
	sess.RecordWritten(now)
	return nil
}

// sessionRecordID is the _id of a session's record: {id, uid}.
func sessionRecordID(sess *session.Session) bson.D {
	return bson.D{
		{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: sess.ID()}},
		{Key: "uid", Value: bson.Binary{Subtype: bson.TypeBinaryGeneric, Data: sess.UID()}},
	}
}

// writeSessionRecords upserts the sessions' records in
// config.system.sessions with lastUse now, creating the TTL index that
// expires them (after the session timeout) first.
func (s *Server) writeSessionRecords(ctx context.Context, sessions []*session.Session, now time.Time) error {
	if !s.sessionsIndexed.Load() {
		spec := docdb.IndexSpec{
			Name:    sessionsTTLIndex,
			Key:     bson.D{{Key: "lastUse", Value: int32(1)}},
			Options: bson.D{{Key: "expireAfterSeconds", Value: int32(s.sessions.Timeout() / time.Second)}},
		}
		if _, err := s.db.CreateIndexes(ctx, catalog.SessionsDB, catalog.SessionsCollection, []docdb.IndexSpec{spec}); err != nil {
			return fmt.Errorf("mongo: sessions TTL index: %w", err)
		}
		s.sessionsIndexed.Store(true)
	}
	ur := docdb.UpdateRequest{Ordered: true}
	for _, sess := range sessions {
		ur.Statements = append(ur.Statements, docdb.UpdateStatement{
			Filter: bson.D{{Key: "_id", Value: sessionRecordID(sess)}},
			Update: bson.D{{Key: "$set", Value: bson.D{{Key: "lastUse", Value: bson.NewDateTimeFromTime(now)}}}},
			Upsert: true,
		})
	}
	res, err := s.db.Update(ctx, catalog.SessionsDB, catalog.SessionsCollection, ur)
	if err != nil {
		return fmt.Errorf("mongo: session records: %w", err)
	}
	if len(res.WriteErrors) > 0 {
		return fmt.Errorf("mongo: session record: %w", res.WriteErrors[0].Err)
	}
	return nil
}

// reapSessions ends the sessions idle for longer than the session timeout;
// their records in config.system.sessions have expired by then, so the
// expiry engine deletes them (or already has).
func (s *Server) reapSessions() {
	idle := s.sessions.Idle(s.now())
	if len(idle) == 0 {
		return
	}
	ids := make([][]byte, len(idle))
	for i, sess := range idle {
		ids[i] = sess.ID()
	}
	s.cursors.killSessions(ids)
	if err := s.endSessions(s.base, idle); err != nil {
		s.log.Error("ending idle sessions", "error", err)
	}
}

// endSessions forgets the sessions: their retry records, their cursors
// and their records in config.system.sessions.
func (s *Server) endSessions(ctx context.Context, sessions []*session.Session) error {
	if len(sessions) == 0 {
		return nil
	}
	dr := docdb.DeleteRequest{Ordered: false}
	for _, sess := range sessions {
		// A session known to have neither retry records nor a record in
		// config.system.sessions (the drivers' implicit sessions) costs
		// no write; one whose state is unknown (used before a restart,
		// or held by a command) is looked up.
		retries, recorded := true, true
		if sess.TryLock() {
			s.endTxn(sess, session.TxnAborted)
			if sess.Resumed() {
				retries, recorded = sess.TxnNumber() >= 0, sess.Recorded()
			}
			sess.Unlock()
		}
		if retries {
			if _, ok, err := s.db.LatestTxnNumber([]byte(sess.Key())); err != nil {
				return err
			} else if ok {
				if err := s.db.ForgetRetries([]byte(sess.Key())); err != nil {
					return err
				}
			}
		}
		if recorded {
			dr.Statements = append(dr.Statements, docdb.DeleteStatement{Filter: bson.D{{Key: "_id", Value: sessionRecordID(sess)}}, Limit: 1})
		}
	}
	if len(dr.Statements) == 0 {
		return nil
	}
	if _, err := s.db.Delete(ctx, catalog.SessionsDB, catalog.SessionsCollection, dr); err != nil {
		return fmt.Errorf("mongo: end sessions: %w", err)
	}
	return nil
}

// retryStep decides what a retryable write with a txnNumber does: a retry
// of the session's current write returns its stored reply (done); a new
// number makes the request's write retryable. The caller holds sess.
func (c *conn) retryStep(cmd *command, req *request, sess *session.Session, a *sessionArgs) (reply bson.D, done bool, err error) {
	if !retryableCommands[req.name] {
		return nil, false, errorf(mongoerr.NotARetryableWriteCommand,
			"txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and %s is not a retryable write command.", req.name)
	}
	step, previous, err := sess.Begin(a.txnNumber)
	if tooOld, ok := err.(*session.TooOldError); ok {
		return nil, false, errorf(mongoerr.TransactionTooOld,
			"Retryable write with txnNumber %d is prohibited on session %s because a newer retryable write with txnNumber %d has already started on this session.",
			tooOld.Requested, sessionName(sess), tooOld.Current)
	}
	if err != nil {
		return nil, false, err
	}
	if step == session.StepRetry {
		stored, err := c.s.db.RetriedReply([]byte(sess.Key()), a.txnNumber)
		if err != nil {
			return nil, false, err
		}
		if stored != nil {
			var d bson.D
			if err := bson.Unmarshal(stored, &d); err != nil {
				return nil, false, fmt.Errorf("mongo: stored retry reply: %w", err)
			}
			c.s.metrics.retriedCommands.Add(1)
			return d, true, nil
		}
	}
	req.retry = &docdb.Retryable{Session: []byte(sess.Key()), TxnNumber: a.txnNumber, Previous: previous}
	return nil, false, nil
}

// retryable returns the docdb form of the request's retryability, with
// reply building the reply a retry answers, or nil for a write that is not
// retryable.
func (r *request) retryable(reply func(result any) bson.D) *docdb.Retryable {
	if r.retry == nil {
		return nil
	}
	rt := *r.retry
	rt.Reply = func(result any) (bson.Raw, error) { return bson.Marshal(reply(result)) }
	return &rt
}
