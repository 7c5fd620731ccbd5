package resp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mayfly/mayfly/internal/acl"
	"github.com/mayfly/mayfly/internal/kv"
)

// client is one connection. Its reader goroutine parses and executes
// requests; pub/sub messages are queued by publishers and written by a
// pusher goroutine started at the first subscription.
type client struct {
	s       *Server
	id      uint64
	nc      net.Conn
	created time.Time
	lastCmd atomic.Int64 // Unix ms of the last command
	w       *Writer
	// qbuf and qbufFree are the bytes held and the room left in the read
	// buffer (CLIENT LIST's qbuf and qbuf-free): while a chunk of requests
	// runs, the whole chunk, the running request included, as in Redis.
	qbuf, qbufFree atomic.Int64

	// state owned by the reader goroutine, read by CLIENT LIST under mu
	mu      sync.Mutex
	name    string
	db      int
	authed  bool
	account *acl.Account // the user authenticated as; nil for the default user
	// authDelay is how long the replies of the running chunk wait after
	// a failed authentication in it (authenticate).
	authDelay time.Duration
	lastName  string
	multi     *multiState
	// oomBefore is set when the command running found used memory over
	// maxmemory with nothing to evict (maxmemory.go), for its scripts.
	oomBefore bool

	measured  string // the name of the command exec runs, for ObserveCommand
	timed     bool   // a read deadline may be set
	replyOff  bool
	replySkip int // replies still to skip (CLIENT REPLY SKIP)
	// skipCurrent: the running command's reply is skipped (CLIENT REPLY
	// SKIP before it), unless it turns replies ON; pushing: it wrote
	// pub/sub confirmations, which CLIENT REPLY OFF and SKIP do not
	// silence.
	skipCurrent, pushing bool
	// deferServe is set while EXEC runs its commands: serveBlocked only
	// records the keys in ready, served when EXEC is done.
	deferServe bool
	// blocked is the waiter of the blocking command the client runs, set
	// and cleared with the store held (CLIENT UNBLOCK).
	blocked   *blockWaiter
	ready     []readyKey
	closeNext bool

	// Read state, owned by the reader goroutine: the request that is not
	// complete yet sits at the start of the read buffer.
	req      progress   // how far its parsing got
	reqSince time.Time  // when its first byte arrived; zero when none
	cmds     [][][]byte // the complete requests of one read
	pool     [][]byte   // backing store of every argument list of cmds
	marks    []int      // reply buffer offset at the start of each command
	flushes  int        // replies flushed so far (flush counts them)

	// track is the client's CLIENT TRACKING state, nil until it first
	// turns tracking on (tracker).
	track *tracking

	// lc is the connection on an event loop (eventloop.go); nil when the
	// client's own goroutine reads it (serve).
	lc *loopConn

	// delivery of pushes
	ncmu     replyLock  // serializes writes to nc
	pmu      sync.Mutex // guards push and subs
	push     []byte
	pushSig  chan struct{}
	pushDone chan struct{}
	pusher   bool
	subs     int // channels + patterns subscribed
	protoV   int // protocol version, read by publishers
	dead     atomic.Bool
	stopping atomic.Bool
	// leaving is set once the connection is to close (QUIT, CLIENT KILL,
	// a read error): a tracking redirection to it is broken from then on.
	leaving atomic.Bool
}

func newClient(s *Server, nc net.Conn) *client {
	c := &client{
		s:       s,
		id:      s.nextID.Add(1),
		nc:      nc,
		created: s.opts.Now(),
		w:       NewWriter(2),
		authed:  s.acl.defaultAuthed(),
		pushSig: make(chan struct{}, 1),
		protoV:  2,
	}
	c.lastCmd.Store(c.created.UnixMilli())
	return c
}

// shutdown asks the connection to close once its current commands are
// done: a blocked read returns at once.
func (c *client) shutdown() {
	c.stopping.Store(true)
	c.nc.SetReadDeadline(time.Now())
	if c.lc != nil {
		c.lc.stop()
	}
}

// kill closes the connection from another goroutine (CLIENT KILL).
func (c *client) kill() {
	c.leaving.Store(true)
	c.dead.Store(true)
	c.nc.Close()
}

// Read buffer sizes. A request that does not fit the buffer grows it:
// doubled while it is small, by a quarter past growQuarterFrom, and never
// past the end of an argument being read plus readBufferSize once that
// argument's header is in (progress.need), so a large argument is read into
// a buffer of its exact size, not into twice it. A client's buffer is thus
// at most max(1.25 x the bytes of its pending request, that request's
// declared size + 16 KiB), allocated only as bytes arrive, and never more
// than client-query-buffer-limit (1 GiB by default, as in Redis).
const (
	readBufferSize  = 16 << 10
	growQuarterFrom = 4 << 20
	retainedBuffer  = 1 << 20  // larger read, reply and push buffers are dropped once empty
	retainedArgs    = 64 << 10 // larger argument and command lists are dropped after use
	argOverhead     = 24       // bytes of a parsed argument's slice, counted against the query buffer limit
	writeChunk      = 4 << 20
)

func (c *client) serve() {
	s := c.s
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("resp: panic serving connection", "client", c.id, "panic", r, "stack", string(debug.Stack()))
		}
		c.close()
	}()
	buf := make([]byte, 0, readBufferSize)
	for {
		if len(buf) == cap(buf) {
			var ok bool
			if buf, ok = c.grow(buf); !ok {
				return
			}
		}
		if c.stopping.Load() {
			return
		}
		c.armReadDeadline()
		n, err := c.nc.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			s.stats.netIn.Add(int64(n))
			if len(buf) == 0 && s.opts.FrameTimeout > 0 {
				c.reqSince = time.Now()
			}
			buf = buf[:len(buf)+n]
			c.noteReadBuffer(buf)
			var ok bool
			if buf, ok = c.process(buf); !ok {
				return
			}
			c.noteReadBuffer(buf)
		}
		if err != nil {
			c.readFailed(err, len(buf))
			return
		}
		if c.stopping.Load() {
			return
		}
	}
}

// noteReadBuffer records the read buffer's size for CLIENT LIST.
func (c *client) noteReadBuffer(buf []byte) {
	c.qbuf.Store(int64(len(buf)))
	c.qbufFree.Store(int64(cap(buf) - len(buf)))
}

// process runs every complete request at the start of buf and returns the
// buffer holding only the incomplete rest, moved to its start. It reports
// whether the connection stays open.
func (c *client) process(buf []byte) ([]byte, bool) {
	pos, perr, more := c.parseChunk(buf)
	if more {
		return buf, true
	}
	ran := len(c.cmds) > 0 || perr != nil
	if ran {
		if c.timed {
			// A blocking command watches the socket while it waits: no
			// read deadline may cut it short.
			c.setReadDeadline(time.Time{})
		}
		if !c.run(c.cmds, perr) {
			return nil, false
		}
	}
	return c.endChunk(buf, pos, ran), true
}

// parseChunk collects the complete requests at the start of buf in c.cmds
// and returns how many bytes they take and the protocol error that ended
// them, if any. more reports that no request is complete yet and nothing
// is to run.
func (c *client) parseChunk(buf []byte) (pos int, perr error, more bool) {
	p := &c.req
	if p.need > int64(len(buf)) {
		return 0, nil, true // the argument being read has not all arrived
	}
	lim := c.limits()
	if p.pos > 0 {
		// Resume the pending request where its parsing stopped; once it is
		// complete (or wrong) it is parsed again below from its start,
		// collecting its arguments.
		if done, err := p.advance(buf, lim, nil); err == nil && !done {
			return 0, nil, true
		}
	}
	c.cmds = c.cmds[:0]
	clear(c.pool)
	c.pool = c.pool[:0]
	for {
		*p = progress{}
		args := c.pool[len(c.pool):]
		done, err := p.advance(buf[pos:], lim, &args)
		if err != nil {
			perr = err
			break
		}
		if !done {
			break
		}
		pos += p.pos
		if len(args) > 0 {
			// args was appended in place after pool's end (or
			// reallocated); either way keep it in pool.
			c.pool = append(c.pool, args...)
			c.cmds = append(c.cmds, c.pool[len(c.pool)-len(args):len(c.pool):len(c.pool)])
		}
	}
	return pos, perr, false
}

// endChunk drops the pos bytes of the requests that ran (ran) from buf and
// returns the buffer holding the incomplete rest at its start.
func (c *client) endChunk(buf []byte, pos int, ran bool) []byte {
	if ran {
		if cap(c.pool) > retainedArgs {
			c.pool = nil
		}
		if cap(c.cmds) > retainedArgs {
			c.cmds = nil
		}
		if cap(c.marks) > retainedArgs {
			c.marks = nil
		}
	}
	// Keep the incomplete tail at the start of a buffer we may reuse.
	rest := len(buf) - pos
	switch {
	case rest == 0:
		c.reqSince = time.Time{}
		if cap(buf) > retainedBuffer {
			return make([]byte, 0, readBufferSize)
		}
		return buf[:0]
	case ran && cap(buf) > retainedBuffer && rest <= readBufferSize/2:
		nb := make([]byte, rest, readBufferSize)
		copy(nb, buf[pos:])
		buf = nb
	case pos > 0:
		copy(buf, buf[pos:])
		buf = buf[:rest]
	}
	if (ran || pos > 0) && c.s.opts.FrameTimeout > 0 {
		// The tail is a new request: its frame timeout starts now, and
		// the time the commands before it took (a BLPOP may wait for
		// minutes) is not the client's.
		c.reqSince = time.Now()
	}
	return buf
}

// grow returns a larger buffer holding buf, which the incomplete request
// at its start fills, or false when the request has reached
// client-query-buffer-limit: the client is then closed, as Redis does.
func (c *client) grow(buf []byte) ([]byte, bool) {
	p := &c.req
	limit := c.s.cfg.queryBufferLimit()
	if int64(len(buf))+argOverhead*p.parsed >= limit || p.need > limit {
		c.s.log.Warn("resp: Closing client that reached max query buffer length",
			"client", c.id, "addr", c.nc.RemoteAddr().String(), "qbuf", len(buf), "args", p.parsed,
			"need", p.need, "client-query-buffer-limit", limit)
		return nil, false
	}
	size := growSize(cap(buf), len(buf), p.need, limit)
	nb := make([]byte, len(buf), size)
	copy(nb, buf)
	return nb, true
}

// growSize is the capacity a full read buffer of capacity cp holding n
// bytes of an incomplete request grows to: twice cp, or a quarter more
// from growQuarterFrom on, but no more than the end of the argument being
// read (need, when known) plus readBufferSize, and no more than limit.
func growSize(cp, n int, need, limit int64) int64 {
	size := int64(2 * cp)
	if cp >= growQuarterFrom {
		size = int64(cp + cp/4)
	}
	if need > int64(n) {
		size = min(size, need+readBufferSize)
	}
	return max(min(size, limit), int64(cp)+1)
}

// armReadDeadline sets the deadline of the next read: the idle timeout
// (CONFIG timeout, off by default; never for subscribers) and, once a
// request has started to arrive, the frame timeout for the rest of it.
func (c *client) armReadDeadline() {
	var d time.Time
	if t := c.s.cfg.idleTimeout(); t > 0 && c.subscriptions() == 0 {
		d = time.Now().Add(t)
	}
	if ft := c.s.opts.FrameTimeout; ft > 0 && !c.reqSince.IsZero() {
		if f := c.reqSince.Add(ft); d.IsZero() || f.Before(d) {
			d = f
		}
	}
	if d.IsZero() && !c.timed {
		return
	}
	c.setReadDeadline(d)
}

// setReadDeadline sets the read deadline unless Shutdown asked the
// connection to stop, whose deadline of now must stay.
func (c *client) setReadDeadline(t time.Time) {
	c.nc.SetReadDeadline(t)
	c.timed = !t.IsZero()
	if c.stopping.Load() {
		c.nc.SetReadDeadline(time.Now())
	}
}

// readFailed logs why reading ended, when it says something about the
// client: the frame timeout or the idle timeout.
func (c *client) readFailed(err error, pending int) {
	if !errors.Is(err, os.ErrDeadlineExceeded) || c.stopping.Load() {
		return
	}
	if ft := c.s.opts.FrameTimeout; ft > 0 && !c.reqSince.IsZero() && !time.Now().Before(c.reqSince.Add(ft)) {
		c.s.log.Info("resp: closing client that did not finish its request within the frame timeout",
			"client", c.id, "addr", c.nc.RemoteAddr().String(), "pending", pending, "frame-timeout", ft)
		return
	}
	c.s.log.Debug("resp: closing idle client", "client", c.id, "addr", c.nc.RemoteAddr().String())
}

func (c *client) limits() Limits {
	l := c.s.cfg.limits()
	if !c.authed {
		l.Unauthenticated = true
	}
	return l
}

// run executes one chunk of pipelined commands in one kv transaction and
// flushes the replies once. It reports whether the connection stays open.
func (c *client) run(cmds [][][]byte, perr error) bool {
	s := c.s
	c.ncmu.Lock()
	defer c.ncmu.Unlock()
	c.w.Reset()
	if len(cmds) > 0 {
		// The first command's latency includes the wait for the store
		// (execMeasured).
		start := time.Now()
		if chunkMayRunScript(cmds) {
			s.runs.pending.Add(1)
			defer s.runs.pending.Add(-1)
		}
		tx, busy := c.begin()
		if busy {
			c.runBusy(cmds)
			return c.finishChunk(perr)
		}
		tx.StopOn(s.stop)
		tx.SetOrigin(c.id)
		c.marks = c.marks[:0]
		from := 0 // the first command whose reply is still buffered
		for i, args := range cmds {
			c.marks = append(c.marks, c.w.Len())
			flushes := c.flushes
			tx.Tick()
			p := c.execMeasured(tx, args, start)
			start = time.Time{}
			if c.flushes != flushes {
				// The command flushed the replies before it (a blocking
				// command does before it waits, and commits them).
				from, c.marks[i] = i, 0
			}
			if p != nil {
				c.recovered(tx, cmds, from, i, p)
				start = time.Now()
				tx = s.kv.Begin()
				tx.StopOn(s.stop)
				tx.SetOrigin(c.id)
				from = i + 1
			}
			s.stats.commands.Add(1)
			if c.closeNext || c.dead.Load() {
				break
			}
		}
		if err := tx.Commit(); err != nil {
			s.log.Error("resp: commit", "client", c.id, "err", err)
			c.w.Reset()
			c.w.Error(string(commandError(err, "")))
			c.flush()
			return false
		}
		c.waitAuthDelay()
	}
	return c.finishChunk(perr)
}

// finishChunk answers a protocol error that ended the chunk, flushes the
// replies and reports whether the connection stays open.
func (c *client) finishChunk(perr error) bool {
	s := c.s
	if perr != nil && !c.closeNext {
		var pe *ProtocolError
		if errors.As(perr, &pe) {
			c.w.Error("ERR " + pe.Error())
		}
		c.closeNext = true
	}
	if c.closeNext {
		c.leaving.Store(true)
	}
	c.lastCmd.Store(s.opts.Now().UnixMilli())
	if !c.flush() {
		return false
	}
	return !c.closeNext && !c.dead.Load()
}

// commandPanic is a panic recovered from a command, with the stack where
// it happened.
type commandPanic struct {
	value any
	stack []byte
}

// execMeasured runs one command and reports its latency to ObserveLatency
// (the expiry pacing controller's signal of foreground latency): from
// start, or from now when start is zero, to the end of the command,
// without the time a blocking command spent waiting (as Redis's latency
// figures leave it out). run passes, for the first command of a chunk, the
// time before it asked the store for its transaction, so that the wait
// for the store's lock (behind other clients, the sweeper's reaping and
// the previous commit) counts as the latency it is for the client; the
// later commands of the chunk are measured from their own start. A panic
// in the command is recovered and returned.
func (c *client) execMeasured(tx *kv.Tx, args [][]byte, start time.Time) (p *commandPanic) {
	if start.IsZero() {
		start = time.Now()
	}
	c.ncmu.startCommand()
	defer func() {
		if r := recover(); r != nil {
			p = &commandPanic{value: r, stack: debug.Stack()}
		}
		waited := c.ncmu.endCommand()
		d := time.Since(start) - waited
		if observe := c.s.opts.ObserveLatency; observe != nil {
			observe(d)
		}
		if observe := c.s.opts.ObserveCommand; observe != nil {
			observe(c.measured, d)
		}
	}()
	c.exec(tx, args)
	return nil
}

// Replies of a command that panicked and of the commands its rollback
// undid.
const (
	errInternal   = "ERR internal error while running '%s': the command was not applied"
	errRolledBack = "ERR internal error in a command of the same pipeline: this command's writes were rolled back"
)

// recovered answers a command that panicked (cmds[k]) once: it logs the
// panic with the command, rolls back the transaction so that no half-done
// command is stored, and answers the command with an internal error. The
// rollback also undoes the commands from cmds[from] on, whose replies are
// still buffered (the earlier ones were flushed and committed): each of
// them that had a reply is answered with an error instead. The connection
// goes on with the next command in a new transaction.
func (c *client) recovered(tx *kv.Tx, cmds [][][]byte, from, k int, p *commandPanic) {
	name := strings.ToLower(string(cmds[k][0]))
	if p.value == errScriptStopped {
		c.s.log.Warn("resp: a script that wrote was stopped with the server; its writes are rolled back",
			"client", c.id, "addr", c.nc.RemoteAddr().String())
	} else {
		c.s.log.Error("resp: command panicked", "command", name, "args", len(cmds[k]), "client", c.id,
			"addr", c.nc.RemoteAddr().String(), "panic", p.value, "stack", string(p.stack))
	}
	tx.Rollback()
	var replied []bool
	for j := from; j < k; j++ {
		replied = append(replied, c.marks[j+1] > c.marks[j])
	}
	c.w.Truncate(c.marks[from])
	for _, ok := range replied {
		if ok {
			c.replyError(replyErr(errRolledBack))
		}
	}
	if !c.replyOff {
		c.replyError(replyErr(fmt.Sprintf(errInternal, name)))
	}
	if c.multi != nil {
		// Queued commands may have been answered with errors: EXEC must
		// not run a queue the client believes failed.
		c.multi.aborted = true
	}
}

// flush writes the buffered replies, then any pushes that arrived while
// the commands ran.
func (c *client) flush() bool {
	out := c.w.Bytes()
	c.pmu.Lock()
	if len(c.push) > 0 {
		out = append(out, c.push...)
		c.push = c.push[:0]
		if cap(c.push) > retainedBuffer {
			c.push = nil
		}
	}
	c.pmu.Unlock()
	c.flushes++
	if len(out) == 0 {
		return true
	}
	c.s.stats.netOut.Add(int64(len(out)))
	err := c.write(out)
	if cap(out) > retainedBuffer {
		out = nil // do not keep a huge reply's buffer for the connection's life
	}
	c.w.buf = out[:0]
	return err == nil
}

// write sends b. With a frame timeout, each chunk of b (4 MiB) must be
// taken by the client within it: a client that stops reading its replies
// is closed instead of holding them forever.
func (c *client) write(b []byte) error {
	ft := c.s.opts.FrameTimeout
	if ft <= 0 {
		_, err := c.nc.Write(b)
		return err
	}
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		c.nc.SetWriteDeadline(time.Now().Add(ft))
		if _, err := c.nc.Write(b[:n]); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				c.s.log.Info("resp: closing client that did not read its replies within the frame timeout",
					"client", c.id, "addr", c.nc.RemoteAddr().String(), "frame-timeout", ft)
			}
			c.nc.Close()
			return err
		}
		b = b[n:]
	}
	return nil
}

// deliver queues a push for the client; it never blocks. A client whose
// queue exceeds the limit is disconnected.
func (c *client) deliver(msg []byte) { c.queuePush(msg, true) }

// queuePush queues a push; with wake false the pusher is not told, so it
// goes out with the client's next replies (or the next woken push).
func (c *client) queuePush(msg []byte, wake bool) {
	c.pmu.Lock()
	if len(c.push)+len(msg) > c.s.opts.PushBufferLimit {
		c.pmu.Unlock()
		c.s.log.Warn("resp: closing client over the pub/sub output limit", "client", c.id)
		c.kill()
		return
	}
	c.push = append(c.push, msg...)
	c.pmu.Unlock()
	if !wake {
		return
	}
	select {
	case c.pushSig <- struct{}{}:
	default:
	}
}

// startPusher starts the goroutine that writes queued pushes while the
// reader is idle.
func (c *client) startPusher() {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.pusher {
		return
	}
	c.pusher = true
	c.pushDone = make(chan struct{})
	go func() {
		defer close(c.pushDone)
		for range c.pushSig {
			c.ncmu.Lock()
			c.pmu.Lock()
			out := c.push
			c.push = nil
			c.pmu.Unlock()
			if len(out) > 0 {
				c.s.stats.netOut.Add(int64(len(out)))
				if err := c.write(out); err != nil {
					c.ncmu.Unlock()
					return
				}
			}
			c.ncmu.Unlock()
		}
	}()
}

func (c *client) close() {
	c.leaving.Store(true)
	c.nc.Close()
	c.release()
}

// release drops what the server holds for the client, once its connection
// is closed or closing: subscriptions, watches, MONITOR, tracking, the
// pusher and its place among the clients.
func (c *client) release() {
	c.s.hub.unsubscribeAll(c)
	c.s.watches.unwatchAll(c)
	c.s.unmonitor(c)
	if c.track != nil {
		c.s.tracking.disable(c)
	}
	c.pmu.Lock()
	if c.pusher {
		close(c.pushSig)
	}
	done := c.pushDone
	c.pmu.Unlock()
	if done != nil {
		<-done
	}
	c.s.removeClient(c)
}

// exec runs one command: lookup, arity, auth, MULTI queueing, pub/sub
// context, then the handler; errors become error replies here.
func (c *client) exec(tx *kv.Tx, args [][]byte) {
	s := c.s
	mark := c.w.Len()
	if err := tx.Use(c.db); err != nil {
		c.w.Error(string(commandError(err, "")))
		return
	}
	cmd, err := s.lookupCommand(args)
	c.measured = "unknown"
	if cmd != nil {
		c.measured = cmd.name
	}
	c.skipCurrent, c.pushing = c.replySkip > 0, false
	if c.skipCurrent {
		c.replySkip--
	}
	if err == nil {
		if err = c.admit(cmd, args); err != nil {
			s.cmdStats.rejected(cmd)
		}
	}
	if err == nil && c.multi != nil && cmd.has(flagNoMulti) {
		err = replyErr("ERR Command not allowed inside a transaction")
	}
	if err == nil {
		ctx := aclCtxTop
		if c.multi != nil {
			ctx = aclCtxMulti
		}
		if err = c.checkACL(cmd, args, ctx); err != nil {
			s.cmdStats.rejected(cmd)
		}
	}
	if err == nil {
		if err = c.checkMemory(tx, cmd, args); err != nil {
			s.cmdStats.rejected(cmd)
		}
	}
	if err == nil {
		if err = c.checkReplica(cmd); err != nil {
			s.cmdStats.rejected(cmd)
		}
	}
	if err == nil && c.multi != nil && !cmd.has(flagMultiControl) {
		c.multi.queue(cmd, args)
		c.w.Simple("QUEUED")
	} else if err == nil {
		c.mu.Lock()
		c.lastName = cmd.name
		c.mu.Unlock()
		err = c.call(tx, cmd, args)
	} else if c.multi != nil {
		c.multi.aborted = true
	}
	if err != nil {
		c.replyError(err)
	}
	if c.track != nil {
		s.tracking.endCommand(c, cmd)
	}
	if (c.skipCurrent || c.replyOff) && !c.pushing && c.w.Len() >= mark {
		c.w.Truncate(mark)
	}
}

// admit checks authentication and the pub/sub context.
func (c *client) admit(cmd *command, args [][]byte) error {
	if !c.authed && !cmd.has(flagNoAuth) {
		return errNoAuth
	}
	if c.w.Proto() == 2 && c.subscriptions() > 0 && !cmd.has(flagPubSubOK) {
		return replyErr(fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", cmd.name))
	}
	return nil
}

func (c *client) subscriptions() int {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return c.subs
}

func (c *client) replyError(err error) {
	c.s.stats.errorReplies.Add(1)
	msg := string(commandError(err, ""))
	c.s.cmdStats.errorReply(msg)
	c.w.Error(msg)
}

// call runs a command's handler.
func (c *client) call(tx *kv.Tx, cmd *command, args [][]byte) error {
	x := &cmdCtx{s: c.s, c: c, tx: tx, w: c.w, args: args, cmd: cmd}
	start := time.Now()
	err := cmd.handler(x)
	if c.track != nil && cmd.has(flagReadOnly) && !scriptRunner(cmd) {
		c.s.tracking.remember(c, tx, cmd, args)
	}
	d := time.Since(start)
	c.s.cmdStats.called(cmd, d, err != nil)
	c.s.slowlog.record(c, cmd, args, d)
	if d >= time.Millisecond && !slices.Contains(cmd.flags, "blocking") {
		event := "command"
		if slices.Contains(cmd.flags, "fast") {
			event = "fast-command"
		}
		c.s.latency.observe(event, d, c.s.opts.Now(), c.s.cfg.latencyThreshold())
	}
	c.s.feedMonitors(c, cmd, c.db, args)
	if err != nil {
		return commandError(err, cmd.name)
	}
	return nil
}

// setProto switches the connection to RESP version p.
func (c *client) setProto(p int) {
	c.w.SetProto(p)
	c.pmu.Lock()
	c.protoV = p
	c.pmu.Unlock()
}

// replyLock serializes writes to the connection (the client's ncmu). The
// reader holds it while it executes commands; a blocking command (BLPOP)
// lets go of it while it waits so that pub/sub pushes can go out, and takes
// it again when it wakes. The lock adds up how long it was let go of during
// a command, so that the command's latency leaves the wait out. Every
// field is accessed with mu held.
type replyLock struct {
	mu       sync.Mutex
	running  bool          // a command is executing
	released time.Time     // when it let go of the lock; zero while held
	waited   time.Duration // time it was let go of during the command
}

// Lock takes the lock.
func (l *replyLock) Lock() {
	l.mu.Lock()
	if l.running && !l.released.IsZero() {
		l.waited += time.Since(l.released)
		l.released = time.Time{}
	}
}

// Unlock releases the lock.
func (l *replyLock) Unlock() {
	if l.running {
		l.released = time.Now()
	}
	l.mu.Unlock()
}

// startCommand marks the start of a command; the caller holds the lock.
func (l *replyLock) startCommand() {
	l.running, l.released, l.waited = true, time.Time{}, 0
}

// endCommand marks the end of the command and returns how long it let go
// of the lock; the caller holds the lock.
func (l *replyLock) endCommand() time.Duration {
	l.running = false
	return l.waited
}
