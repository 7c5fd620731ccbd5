package mongo

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"runtime/debug"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/session"
)

// request is one command: its database, name and document. Document
// sequences of an OP_MSG are already merged into the document as arrays.
type request struct {
	c    *conn
	db   string
	name string
	cmd  bson.Raw
	// opQuery is set for a command that came as a legacy OP_QUERY.
	opQuery bool
	// retry is set for a retryable write (lsid and txnNumber) that runs.
	retry *docdb.Retryable
	// txn and sess are set for a statement of a multi-document
	// transaction; done for a commitTransaction of a committed one.
	txn  *docdb.Txn
	sess *session.Session
	done bool
	// exhaust is set for an OP_MSG with exhaustAllowed; a handler that
	// streams its replies (hello) sets next to the command of the next
	// reply. waited is the time the handler waited by design (an
	// awaitable hello), which its latency leaves out.
	exhaust bool
	next    bson.Raw
	waited  time.Duration
}

// newMsgRequest builds the request of an OP_MSG: the body names the
// database in $db, and every document sequence becomes an array field of
// the command document.
func newMsgRequest(c *conn, m *opMsg) (*request, error) {
	body := m.body()
	v, err := body.LookupErr("$db")
	if err != nil {
		return nil, errorf(mongoerr.Location40571, "OP_MSG requests require a $db argument")
	}
	db, ok := v.StringValueOK()
	if !ok {
		return nil, typeMismatch("", "$db", v.Type, "string")
	}
	cmd := body
	if len(m.sections) > 1 {
		cmd = mergeSequences(body, m.sections)
	}
	return newRequest(c, db, cmd)
}

// mergeSequences returns body with every document sequence appended as an
// array field named by its identifier.
func mergeSequences(body bson.Raw, sections []section) bson.Raw {
	size := len(body)
	for _, s := range sections {
		if s.kind != sectionSequence {
			continue
		}
		size += 1 + len(s.identifier) + 1 + 4 + 1
		for i, d := range s.docs {
			size += 1 + len(strconv.Itoa(i)) + 1 + len(d)
		}
	}
	out := make([]byte, 0, size)
	out = append(out, body[:len(body)-1]...)
	for _, s := range sections {
		if s.kind != sectionSequence {
			continue
		}
		out = append(out, byte(bson.TypeArray))
		out = append(out, s.identifier...)
		out = append(out, 0)
		start := len(out)
		out = append(out, 0, 0, 0, 0)
		for i, d := range s.docs {
			out = append(out, byte(bson.TypeEmbeddedDocument))
			out = strconv.AppendInt(out, int64(i), 10)
			out = append(out, 0)
			out = append(out, d...)
		}
		out = append(out, 0)
		binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
	}
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out
}

// newRequest names the command: its first field.
func newRequest(c *conn, db string, cmd bson.Raw) (*request, error) {
	first, err := cmd.IndexErr(0)
	if err != nil {
		return nil, errorf(mongoerr.CommandNotFound, "no such command: ''")
	}
	return &request{c: c, db: db, name: first.Key(), cmd: cmd}, nil
}

// first returns the value of the command's first field (the collection name
// of most commands).
func (r *request) first() bson.RawValue {
	return r.cmd.Index(0).Value()
}

// run dispatches the request through the command table and returns the
// reply document: the handler's fields followed by ok: 1, or an error
// reply. It is the one place that recovers from a handler's panic: the
// panic is logged with the command and answered with InternalError, and
// the connection keeps serving.
func (c *conn) run(req *request) (reply bson.D) {
	cmd, ok := commandTable[req.name]
	if !ok || cmd.testOnly && !c.s.opts.TestCommands {
		c.s.metrics.unknownCommands.Add(1)
		return errorDoc(errorf(mongoerr.CommandNotFound, "no such command: '%s'", req.name))
	}
	counter := c.s.metrics.commands[req.name]
	counter.total.Add(1)
	if !cmd.opCounted {
		c.s.metrics.opCommand.Add(1)
	}
	start := time.Now()
	defer func() {
		d := time.Since(start) - req.waited
		c.s.metrics.latencies[cmd.latency].record(d)
		c.s.metrics.collLatencies.record(req, cmd.latency, d, &c.nsBuf)
		if observe := c.s.opts.ObserveLatency; observe != nil {
			observe(d)
		}
		if observe := c.s.opts.ObserveCommand; observe != nil {
			observe(req.name, d)
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("command panicked", "command", req.name, "db", req.db,
				"cmd", truncate(req.cmd.String(), 2048), "panic", r, "stack", string(debug.Stack()))
			counter.failed.Add(1)
			reply = errorDoc(errorf(mongoerr.InternalError, "internal error while running command %s", req.name))
		}
	}()
	out, err := c.runCommand(cmd, req)
	if req.db == authDB {
		c.noteAuthWrite(req)
	}
	if err != nil {
		counter.failed.Add(1)
		e, ok := asMongoError(err)
		if !ok {
			c.log.Error("command failed", "command", req.name, "db", req.db, "error", err)
		}
		return c.s.withTopologyVersion(errorDoc(e), e.Code)
	}
	return append(out, bson.E{Key: "ok", Value: 1.0})
}

// runCommand checks what every command shares (admin-only commands, with
// access control the command's privileges, the generic arguments MongoDB
// acts on) and calls the handler with the
// connection's context, bounded by maxTimeMS.
func (c *conn) runCommand(cmd *command, req *request) (bson.D, error) {
	if cmd.adminOnly && req.db != "admin" {
		return nil, errorf(mongoerr.Unauthorized, "%s may only be run against the admin database.", req.name)
	}
	if c.s.opts.Auth {
		if err := c.authorize(c.ctx, cmd, req); err != nil {
			return nil, err
		}
	}
	if err := checkAPIStrict(req); err != nil {
		return nil, err
	}
	if err := c.checkPrimary(req); err != nil {
		return nil, err
	}
	ctx, cancelOp := context.WithCancelCause(c.ctx)
	defer cancelOp(nil)
	op := c.s.ops.begin(c, req, c.s.now(), cancelOp)
	defer c.s.ops.end(op)
	var maxTime time.Duration
	var sa sessionArgs
	var ta txnArgs
	var readConcern, writeConcern bson.RawValue
	first := true
	err := eachElement(req.cmd, func(el bson.RawElement) error {
		if first {
			first = false
			return nil
		}
		switch string(elementKey(el)) {
		case "lsid", "txnNumber":
			return parseSessionArg(&sa, string(elementKey(el)), el.Value())
		case "autocommit", "startTransaction":
			return parseTxnArg(&ta, string(elementKey(el)), el.Value())
		case "readConcern":
			ta.readConcern, readConcern = true, el.Value()
			return c.s.clock.checkReadConcern(el.Value())
		case "writeConcern":
			ta.writeConcern, writeConcern = true, el.Value()
		case "maxTimeMS":
			ms, err := maxTimeMS(req.name, el.Value())
			if err != nil {
				return err
			}
			maxTime = time.Duration(ms) * time.Millisecond
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A transaction reads its snapshot whatever its level; outside one,
	// the levels a standalone refuses are refused.
	if ta.readConcern && !ta.hasAutocommit && !ta.hasStart {
		if err := checkReadConcern(readConcern); err != nil {
			return nil, err
		}
	}
	if ta.readConcern {
		if err := c.checkLinearizable(readConcern); err != nil {
			return nil, err
		}
	}
	if maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, maxTime)
		defer cancel()
	}
	sess, err := c.useSession(ctx, &sa)
	if err != nil {
		return nil, err
	}
	if sess == nil && (ta.hasAutocommit || ta.hasStart) {
		return nil, errorf(mongoerr.InvalidOptions, "'autocommit' field requires a transaction number to also be specified")
	}
	if sess != nil {
		defer sess.Unlock()
		switch {
		case ta.hasAutocommit || ta.hasStart:
			tctx, done, err := c.txnStep(ctx, req, sess, &sa, &ta)
			if err != nil {
				return nil, err
			}
			if done {
				req.done = true
			} else {
				ctx = tctx
				c.s.txnMetrics.currentActive.Add(1)
				defer c.s.txnMetrics.currentActive.Add(-1)
			}
		case sa.hasTxn:
			reply, done, err := c.retryStep(cmd, req, sess, &sa)
			if err == nil && done {
				// The fail point acts on a retry answered from its record too.
				var failed failAction
				if failed, err = c.applyFailPoint(ctx, req); err == nil {
					reply = failed.withWriteConcernError(reply)
				}
			}
			if err != nil || done {
				return reply, err
			}
		case req.name == "commitTransaction" || req.name == "abortTransaction":
			return nil, errorf(mongoerr.InvalidOptions, "%s must be run within a transaction", req.name)
		}
	}
	var out bson.D
	failed, err := c.applyFailPoint(ctx, req)
	if err == nil && req.sess != nil {
		req.sess.Txn().Unstarted = false
	}
	if err == nil {
		tw := c.txnWriteFailPoint(req)
		err = tw.beforeWrite(c)
		if err == nil {
			out, err = cmd.handler(ctx, c, req)
		}
		if err == nil {
			err = tw.afterWrite(c)
		}
		if err == nil {
			out = failed.withWriteConcernError(out)
			out = c.waitWriteConcern(ctx, req, writeConcern, out)
		}
		// A command the failCommand fail point failed did not run, so it
		// leaves the transaction open.
		out, err = c.afterTxnStatement(req, out, err)
	}
	if err != nil && ta.hasAutocommit {
		err = withTransientTxnLabel(err, req.name)
	}
	if err != nil && req.retry != nil {
		if e, ok := mongoerr.As(err); ok && retryableCodes[e.Code] && e.Info["errorLabels"] == nil {
			err = withLabels(e, labelRetryable)
		}
	}
	if err != nil && ctx.Err() != nil {
		if _, isMongo := mongoerr.As(err); !isMongo || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			if op.killed.Load() && c.ctx.Err() == nil {
				return nil, errorf(mongoerr.Interrupted, "operation was interrupted")
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.ctx.Err() == nil {
				return nil, errorf(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
			}
			return nil, errorf(mongoerr.ClientDisconnect, "operation was interrupted because a client disconnected")
		}
	}
	return out, err
}

// maxTimeMS parses the generic maxTimeMS argument: a non-negative 32-bit
// integer, 0 meaning no limit.
func maxTimeMS(cmd string, v bson.RawValue) (int64, error) {
	if !isNumber(v.Type) {
		return 0, typeMismatch(cmd, "maxTimeMS", v.Type, numberTypes)
	}
	if f, _ := numberAsFloat(v); f != math.Trunc(f) && !math.IsInf(f, 0) {
		return 0, errorf(mongoerr.BadValue, "maxTimeMS has non-integral value")
	}
	ms, ok := numberAsInt64(v)
	if !ok {
		// Beyond int64: MongoDB reports the saturated value.
		ms = math.MaxInt64
		if f, _ := numberAsFloat(v); f < 0 {
			ms = math.MinInt64
		}
	}
	if ms < 0 || ms > 1<<31-1 {
		return 0, errorf(mongoerr.BadValue, "%d value for maxTimeMS is out of range [0, 2147483647]", ms)
	}
	return ms, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
