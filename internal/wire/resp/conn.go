package resp

import (
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

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

	// state owned by the reader goroutine, read by CLIENT LIST under mu
	mu       sync.Mutex
	name     string
	db       int
	authed   bool
	lastName string
	multi    *multiState

	timed     bool // a read deadline for the idle timeout may be set
	replyOff  bool
	replySkip int // replies still to skip (CLIENT REPLY SKIP)
	closeNext bool

	// delivery of pushes
	ncmu     sync.Mutex // serializes writes to nc
	pmu      sync.Mutex // guards push and subs
	push     []byte
	pushSig  chan struct{}
	pushDone chan struct{}
	pusher   bool
	subs     int // channels + patterns subscribed
	protoV   int // protocol version, read by publishers
	dead     atomic.Bool
	stopping atomic.Bool
}

func newClient(s *Server, nc net.Conn) *client {
	c := &client{
		s:       s,
		id:      s.nextID.Add(1),
		nc:      nc,
		created: s.opts.Now(),
		w:       NewWriter(2),
		authed:  s.cfg.requirePass() == "",
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
}

// kill closes the connection from another goroutine (CLIENT KILL).
func (c *client) kill() {
	c.dead.Store(true)
	c.nc.Close()
}

func (c *client) serve() {
	s := c.s
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("resp: panic serving connection", "client", c.id, "panic", r, "stack", string(debug.Stack()))
		}
		c.close()
	}()
	buf := make([]byte, 0, 16<<10)
	var cmds [][][]byte
	var pool [][]byte // backing store of every argument list of a chunk
	for {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		// Redis's timeout: an idle client is closed, except subscribers.
		if d := s.cfg.idleTimeout(); d > 0 && c.subscriptions() == 0 && !c.stopping.Load() {
			c.nc.SetReadDeadline(time.Now().Add(d))
		} else if c.timed {
			c.nc.SetReadDeadline(time.Time{})
		}
		c.timed = s.cfg.idleTimeout() > 0
		if c.stopping.Load() {
			return
		}
		n, err := c.nc.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			s.stats.netIn.Add(int64(n))
			buf = buf[:len(buf)+n]
			pos := 0
			var perr error
			cmds = cmds[:0]
			clear(pool)
			pool = pool[:0]
			lim := c.limits()
			for {
				args, m, err := ParseCommand(buf[pos:], lim, pool[len(pool):])
				if err != nil {
					perr = err
					break
				}
				if m == 0 {
					break
				}
				pos += m
				if len(args) > 0 {
					// args was appended in place after pool's end (or
					// reallocated); either way keep it in pool.
					pool = append(pool, args...)
					cmds = append(cmds, pool[len(pool)-len(args):len(pool):len(pool)])
				}
			}
			if len(cmds) > 0 || perr != nil {
				if !c.run(cmds, perr) {
					return
				}
			}
			// Keep the incomplete tail at the start of a buffer we may reuse.
			rest := len(buf) - pos
			if rest == 0 {
				if cap(buf) > 1<<20 {
					buf = make([]byte, 0, 16<<10)
				} else {
					buf = buf[:0]
				}
			} else if pos > 0 {
				copy(buf, buf[pos:])
				buf = buf[:rest]
			}
		}
		if err != nil || c.stopping.Load() {
			return
		}
	}
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
		tx := s.kv.Begin()
		for _, args := range cmds {
			start := time.Now()
			tx.Tick()
			c.exec(tx, args)
			s.stats.commands.Add(1)
			if s.opts.ObserveLatency != nil {
				s.opts.ObserveLatency(time.Since(start))
			}
			if c.closeNext || c.dead.Load() {
				break
			}
		}
		if err := tx.Commit(); err != nil {
			s.log.Error("resp: commit", "client", c.id, "err", err)
			c.w.Reset()
			c.w.Error("ERR " + err.Error())
			c.flush()
			return false
		}
	}
	if perr != nil && !c.closeNext {
		var pe *ProtocolError
		if errors.As(perr, &pe) {
			c.w.Error("ERR " + pe.Error())
		}
		c.closeNext = true
	}
	c.lastCmd.Store(s.opts.Now().UnixMilli())
	if !c.flush() {
		return false
	}
	return !c.closeNext && !c.dead.Load()
}

// flush writes the buffered replies, then any pushes that arrived while
// the commands ran.
func (c *client) flush() bool {
	out := c.w.Bytes()
	c.pmu.Lock()
	if len(c.push) > 0 {
		out = append(out, c.push...)
		c.push = c.push[:0]
	}
	c.pmu.Unlock()
	if len(out) == 0 {
		return true
	}
	c.s.stats.netOut.Add(int64(len(out)))
	_, err := c.nc.Write(out)
	if cap(out) > 1<<20 {
		out = nil // do not keep a huge reply's buffer for the connection's life
	}
	c.w.buf = out[:0]
	return err == nil
}

// deliver queues a push for the client; it never blocks. A client whose
// queue exceeds the limit is disconnected.
func (c *client) deliver(msg []byte) {
	c.pmu.Lock()
	if len(c.push)+len(msg) > c.s.opts.PushBufferLimit {
		c.pmu.Unlock()
		c.s.log.Warn("resp: closing client over the pub/sub output limit", "client", c.id)
		c.kill()
		return
	}
	c.push = append(c.push, msg...)
	c.pmu.Unlock()
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
				if _, err := c.nc.Write(out); err != nil {
					c.ncmu.Unlock()
					return
				}
			}
			c.ncmu.Unlock()
		}
	}()
}

func (c *client) close() {
	c.nc.Close()
	c.s.hub.unsubscribeAll(c)
	c.s.watches.unwatchAll(c)
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
		c.w.Error("ERR " + err.Error())
		return
	}
	cmd, err := s.lookupCommand(args)
	skipThis := false
	if c.replySkip > 0 {
		skipThis = true
		c.replySkip--
	}
	if err == nil {
		err = c.admit(cmd, args)
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
	if (skipThis || c.replyOff) && c.w.Len() >= mark {
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
	c.w.Error(errorText(err))
}

// call runs a command's handler.
func (c *client) call(tx *kv.Tx, cmd *command, args [][]byte) error {
	x := &cmdCtx{s: c.s, c: c, tx: tx, w: c.w, args: args, cmd: cmd}
	return cmd.handler(x)
}

// setProto switches the connection to RESP version p.
func (c *client) setProto(p int) {
	c.w.SetProto(p)
	c.pmu.Lock()
	c.protoV = p
	c.pmu.Unlock()
}
