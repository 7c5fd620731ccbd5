package mongo

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Operations in progress: every command is registered for the time its
// handler runs, under an operation id (opid) unique for the server's life,
// so that currentOp and $currentOp report it and killOp interrupts it.
// Interrupting cancels the command's context with errKilled; the document
// database checks the context between documents, and the command then fails
// with Interrupted, as MongoDB's does.

// errKilled is the cause of the context of a command interrupted by killOp.
var errKilled = errors.New("mongo: operation killed by killOp")

// operation is a command being processed.
type operation struct {
	id      int32
	c       *conn
	db      string
	name    string
	cmd     bson.Raw // valid while the operation is registered
	started time.Time
	cancel  context.CancelCauseFunc
	killed  atomic.Bool
}

// opRegistry holds the operations in progress by opid.
type opRegistry struct {
	mu   sync.Mutex
	next int32
	ops  map[int32]*operation
}

func newOpRegistry() *opRegistry { return &opRegistry{ops: map[int32]*operation{}} }

// begin registers the command req of c, started at now, whose context
// cancel interrupts. A connection runs one command at a time, so its
// operation is the connection's own, reused from command to command.
func (r *opRegistry) begin(c *conn, req *request, now time.Time, cancel context.CancelCauseFunc) *operation {
	op := &c.op
	r.mu.Lock()
	op.c, op.db, op.name, op.cmd, op.started, op.cancel = c, req.db, req.name, req.cmd, now, cancel
	op.killed.Store(false)
	for {
		r.next++
		if r.next <= 0 {
			r.next = 1
		}
		if _, taken := r.ops[r.next]; !taken {
			break
		}
	}
	op.id = r.next
	r.ops[op.id] = op
	r.mu.Unlock()
	return op
}

// end unregisters op; its command bytes are not read after it returns.
func (r *opRegistry) end(op *operation) {
	r.mu.Lock()
	delete(r.ops, op.id)
	op.cmd, op.cancel = nil, nil
	r.mu.Unlock()
}

// kill interrupts the operation with that id; false if there is none.
func (r *opRegistry) kill(id int64) bool {
	r.mu.Lock()
	op, ok := r.ops[int32(id)]
	if !ok || int64(op.id) != id {
		r.mu.Unlock()
		return false
	}
	op.killed.Store(true)
	// The operation's own cancel, taken under the lock: once it is
	// unlocked the connection may reuse op for its next command.
	cancel := op.cancel
	r.mu.Unlock()
	cancel(errKilled)
	return true
}

// currentOpOptions are the options of $currentOp that change what is
// reported.
type currentOpOptions struct {
	idleConnections bool
	idleCursors     bool
	// ownOnly keeps the operations, connections and cursors of user
	// owner ("user@db") only ($ownOps).
	ownOnly bool
	owner   string
}

// keeps reports whether o reports what user opened.
func (o currentOpOptions) keeps(user string) bool { return !o.ownOnly || user == o.owner }

// currentOps returns the documents currentOp reports at now: one per
// operation in progress (type "op", active), and, as asked, one per idle
// connection (active false) and per idle cursor (type "idleCursor"), in
// MongoDB's fields.
func (s *Server) currentOps(now time.Time, o currentOpOptions) []bson.D {
	var out []bson.D
	busy := map[*conn]bool{}
	s.ops.mu.Lock()
	ops := make([]*operation, 0, len(s.ops.ops))
	for _, op := range s.ops.ops {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	for _, op := range ops {
		busy[op.c] = true
		if !o.keeps(op.c.sharedUser()) {
			continue
		}
		d := op.c.opClientFields(now)
		running := max(now.Sub(op.started), 0)
		d = append(d,
			bson.E{Key: "active", Value: true},
			bson.E{Key: "currentOpTime", Value: opTime(now)},
			bson.E{Key: "threaded", Value: true},
			bson.E{Key: "opid", Value: op.id},
		)
		if v, err := op.cmd.LookupErr("lsid"); err == nil {
			d = append(d, bson.E{Key: "lsid", Value: bson.RawValue{Type: v.Type, Value: bytes.Clone(v.Value)}})
		}
		d = append(d,
			bson.E{Key: "secs_running", Value: int64(running / time.Second)},
			bson.E{Key: "microsecs_running", Value: running.Microseconds()},
			bson.E{Key: "op", Value: logicalOp(op.name)},
			bson.E{Key: "ns", Value: opNamespace(op.db, op.name, op.cmd)},
			bson.E{Key: "redacted", Value: false},
			bson.E{Key: "command", Value: bson.Raw(bytes.Clone(op.cmd))},
			bson.E{Key: "numYields", Value: int32(0)},
			bson.E{Key: "locks", Value: bson.D{}},
			bson.E{Key: "waitingForLock", Value: false},
			bson.E{Key: "lockStats", Value: bson.D{}},
			bson.E{Key: "waitingForFlowControl", Value: false},
			bson.E{Key: "flowControlStats", Value: bson.D{}},
		)
		if op.killed.Load() {
			d = append(d, bson.E{Key: "killPending", Value: true})
		}
		out = append(out, d)
	}
	s.ops.mu.Unlock()
	if o.idleConnections {
		s.mu.Lock()
		conns := make([]*conn, 0, len(s.conns))
		for c := range s.conns {
			if !busy[c] && o.keeps(c.sharedUser()) {
				conns = append(conns, c)
			}
		}
		s.mu.Unlock()
		sort.Slice(conns, func(i, j int) bool { return conns[i].id < conns[j].id })
		for _, c := range conns {
			d := c.opClientFields(now)
			d = append(d, bson.E{Key: "active", Value: false}, bson.E{Key: "currentOpTime", Value: opTime(now)})
			out = append(out, d)
		}
	}
	if o.idleConnections {
		out = append(out, s.idleTxnOps(now)...)
	}
	if o.idleCursors {
		out = append(out, s.cursors.idleCursorOps(s.host, now, o.keeps)...)
	}
	return out
}

// opClientFields are the fields of a currentOp document that describe the
// connection: type, host, desc, connectionId, client, appName and
// clientMetadata.
func (c *conn) opClientFields(time.Time) bson.D {
	d := bson.D{
		{Key: "type", Value: "op"},
		{Key: "host", Value: c.s.opHost(c)},
		{Key: "desc", Value: connName(c.id)},
		{Key: "connectionId", Value: c.id},
		{Key: "client", Value: c.remote},
	}
	if meta := c.metadata(); meta != nil {
		if name, ok := meta.Lookup("application", "name").StringValueOK(); ok {
			d = append(d, bson.E{Key: "appName", Value: name})
		}
		d = append(d, bson.E{Key: "clientMetadata", Value: meta})
	}
	return d
}

// opHost is the host field of currentOp: this server's host name and the
// port the connection came in on.
func (s *Server) opHost(c *conn) string {
	if _, port, err := net.SplitHostPort(c.nc.LocalAddr().String()); err == nil {
		return net.JoinHostPort(s.host, port)
	}
	return s.host
}

// opTime formats a currentOpTime as MongoDB does (ISO 8601 with the
// offset).
func opTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }

// logicalOp is the op field of currentOp: MongoDB's logical operation of
// the command.
func logicalOp(name string) string {
	switch name {
	case "find":
		return "query"
	case "getMore":
		return "getmore"
	case "insert":
		return "insert"
	case "update":
		return "update"
	case "delete":
		return "remove"
	case "killCursors":
		return "killcursors"
	}
	return "command"
}

// opNamespace is the ns field of currentOp: "db.coll" for a command on a
// collection, "db.$cmd.aggregate" for aggregate: 1, "db.$cmd" otherwise.
func opNamespace(db, name string, cmd bson.Raw) string {
	if name == "getMore" {
		if coll, ok := cmd.Lookup("collection").StringValueOK(); ok {
			return namespace(db, coll)
		}
	}
	first := cmd.Index(0).Value()
	if coll, ok := first.StringValueOK(); ok && coll != "" && collectionCommands[name] {
		return namespace(db, coll)
	}
	if name == "aggregate" {
		return namespace(db, "$cmd.aggregate")
	}
	return namespace(db, "$cmd")
}

// collectionCommands are the commands whose first value names a collection.
var collectionCommands = map[string]bool{
	"aggregate": true, "collMod": true, "collStats": true, "count": true, "create": true,
	"createIndexes": true, "delete": true, "distinct": true, "drop": true, "dropIndexes": true,
	"find": true, "findAndModify": true, "findandmodify": true, "insert": true, "listIndexes": true,
	"update": true,
}
