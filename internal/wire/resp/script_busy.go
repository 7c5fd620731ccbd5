package resp

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

// errBusy is the reply to a command while an EVAL script has run longer
// than busy-reply-threshold, errBusyFunction while a function (FCALL) has.
var (
	errBusy         = replyErr("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	errBusyFunction = replyErr("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")
)

// runningScript is the script that holds the store's lock, as SCRIPT KILL
// and the clients waiting for the store see it.
type runningScript struct {
	// name is the script's SHA1 or the function's name; function is set
	// for a function (FCALL), which FUNCTION KILL kills and SCRIPT KILL
	// does not, and the other way round for EVAL.
	name     string
	function bool
	// command is the EVAL or FCALL that runs it.
	command [][]byte
	start   time.Time
	cancel  context.CancelFunc
	// wrote is set once the script called a write command: it can no
	// longer be killed, only the server stopped.
	wrote atomic.Bool
}

// scriptRuns tracks the running script. One runs at a time, since a script
// runs inside its EVAL's transaction.
type scriptRuns struct {
	// active is whether a script runs: read without the lock by every
	// chunk that finds the store held, so that with no script it waits for
	// the store as it always did.
	active atomic.Bool
	// pending counts the chunks being run that may start a script
	// (chunkMayRunScript): a chunk that finds the store held by one of
	// them watches for the script too, even before the script starts.
	pending atomic.Int32
	// denyDisabled lets scripts call commands flagged noscript (DEBUG
	// SET-DISABLE-DENY-SCRIPTS 1), as Redis's tests do.
	denyDisabled atomic.Bool
	mu           sync.Mutex
	cur          *runningScript
	// changed is closed and replaced when a script starts or ends, waking
	// the clients waiting for the store.
	changed chan struct{}
}

// startScript records r as the running script.
func (s *Server) startScript(r *runningScript) {
	s.runs.mu.Lock()
	s.runs.cur = r
	s.runs.active.Store(true)
	s.runs.changedLocked()
	s.runs.mu.Unlock()
}

// endScript records that no script runs.
func (s *Server) endScript() {
	s.runs.mu.Lock()
	s.runs.cur = nil
	s.runs.active.Store(false)
	s.runs.changedLocked()
	s.runs.mu.Unlock()
}

func (r *scriptRuns) changedLocked() {
	if r.changed != nil {
		close(r.changed)
	}
	r.changed = make(chan struct{})
}

// busyScript returns the running script if it has run for
// busy-reply-threshold or longer, else nil; and the channel closed when a
// script starts or ends, and how long until the running one (if any)
// reaches the threshold.
func (s *Server) busyScript() (busy *runningScript, changed <-chan struct{}, running bool, left time.Duration) {
	s.runs.mu.Lock()
	r := s.runs.cur
	if s.runs.changed == nil {
		s.runs.changed = make(chan struct{})
	}
	changed = s.runs.changed
	s.runs.mu.Unlock()
	if r == nil {
		return nil, changed, false, 0
	}
	ms, _ := strconv.ParseInt(s.cfg.get("busy-reply-threshold"), 10, 64)
	left = r.start.Add(time.Duration(ms) * time.Millisecond).Sub(s.opts.Now())
	if left <= 0 {
		return r, changed, true, 0
	}
	return nil, changed, true, left
}

// begin opens the transaction of a chunk of commands. When another
// transaction holds the store it waits for it, unless a script holds it
// and has run for busy-reply-threshold: then it begins nothing and reports
// busy, so that the commands get BUSY instead of waiting for the script.
// A chunk that found no script running when it started to wait waits for
// the store to be free, as every chunk did before scripts existed; only the
// chunks that arrive while a script runs watch it.
func (c *client) begin() (tx *kv.Tx, busy bool) {
	s := c.s
	if tx, ok := s.kv.TryBegin(); ok {
		return tx, false
	}
	if !s.runs.active.Load() && s.runs.pending.Load() == 0 {
		return s.kv.Begin(), false
	}
	got := make(chan *kv.Tx, 1)
	go func() { got <- s.kv.Begin() }()
	for {
		r, changed, running, left := s.busyScript()
		if r != nil {
			// The transaction is no longer wanted: end it once it comes.
			go func() { (<-got).Rollback() }()
			return nil, true
		}
		var t *time.Timer
		var tick <-chan time.Time
		if running {
			// The threshold is on the server's clock: look again at least
			// every BlockPoll.
			t = time.NewTimer(min(left, s.opts.BlockPoll))
			tick = t.C
		}
		select {
		case tx := <-got:
			if t != nil {
				t.Stop()
			}
			return tx, false
		case <-changed:
		case <-tick:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// chunkMayRunScript reports whether a chunk of commands has one that runs
// a script: EVAL, EVALSHA, FCALL, their _RO forms, or EXEC (of a queued
// one).
func chunkMayRunScript(cmds [][][]byte) bool {
	for _, args := range cmds {
		if len(args) == 0 {
			continue
		}
		switch n := args[0]; len(n) {
		case 4, 5, 7, 8, 10:
			for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "exec"} {
				if argEq(n, name) {
					return true
				}
			}
		}
	}
	return false
}

// allowedWhileBusy reports whether cmd runs while a script is busy, as in
// Redis: SCRIPT KILL, SHUTDOWN NOSAVE and QUIT, which need no store.
func allowedWhileBusy(cmd *command, args [][]byte) bool {
	switch cmd.name {
	case "script|kill", "function|kill", "function|stats", "quit":
		return true
	case "shutdown":
		for _, a := range args[1:] {
			if argEq(a, "nosave") {
				return true
			}
		}
	}
	return false
}

// runBusy answers a chunk of commands while a script is busy: BUSY for
// each, but the ones allowedWhileBusy, which run without a transaction.
func (c *client) runBusy(cmds [][][]byte) {
	s := c.s
	for _, args := range cmds {
		cmd, err := s.lookupCommand(args)
		if err == nil {
			err = c.admit(cmd, args)
		}
		if err == nil && allowedWhileBusy(cmd, args) {
			err = c.call(nil, cmd, args)
		} else if err == nil {
			s.cmdStats.rejected(cmd)
			err = s.busyError()
		}
		if err != nil {
			if c.multi != nil {
				c.multi.aborted = true
			}
			c.replyError(err)
		}
		s.stats.commands.Add(1)
		if c.closeNext || c.dead.Load() {
			break
		}
	}
}

// runningNow returns the running script, nil when none runs.
func (s *Server) runningNow() *runningScript {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	return s.runs.cur
}

// busyError is the BUSY reply for the running script: it names the
// command that kills it.
func (s *Server) busyError() error {
	if r := s.runningNow(); r != nil && r.function {
		return errBusyFunction
	}
	return errBusy
}

// killScript is SCRIPT KILL (function false) and FUNCTION KILL (function
// true): it stops the running script unless it wrote. SCRIPT KILL kills
// only an EVAL script and FUNCTION KILL only a function; the other gets
// the BUSY reply.
func (s *Server) killScript(function bool) error {
	r := s.runningNow()
	if r == nil {
		return replyErr("NOTBUSY No scripts in execution right now.")
	}
	if r.wrote.Load() {
		return replyErr("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
	}
	if r.function != function {
		return s.busyError()
	}
	r.cancel()
	return nil
}

// stopScript cancels the running script, written or not: the server is
// stopping (SHUTDOWN NOSAVE).
func (s *Server) stopScript() {
	s.runs.mu.Lock()
	r := s.runs.cur
	s.runs.mu.Unlock()
	if r != nil {
		r.cancel()
	}
}
