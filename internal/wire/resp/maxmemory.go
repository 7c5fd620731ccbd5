package resp

import (
	"math"
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/script"
)

// The maxmemory rule at the wire edge. Before every command, when
// maxmemory is set, keys are evicted by the policy (kv.Tx.MakeRoom). When
// used memory stays over maxmemory because nothing can be evicted, Redis's
// OOM error refuses the commands that may grow memory: those flagged
// denyoom, EXEC of a transaction that queued one, EVAL and EVALSHA of a
// script whose shebang declares neither no-writes nor allow-oom, and
// inside MULTI every command but EXEC, DISCARD, QUIT and RESET. A script
// without a shebang is not refused up front: its first write command
// flagged denyoom gets the error, and later ones (after a write) do not.

// errOOM is Redis's reply to a command refused for memory, word for word.
const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// evictionParams are the CONFIG parameters that make up kv.Eviction.
var evictionParams = []string{"maxmemory", "maxmemory-policy", "maxmemory-samples",
	"maxmemory-eviction-tenacity", "lfu-log-factor", "lfu-decay-time"}

// applyEviction hands the maxmemory parameters to the store.
func (s *Server) applyEviction() {
	c := s.cfg
	num := func(name string) int64 {
		n, err := strconv.ParseUint(c.get(name), 10, 64)
		if err != nil || n > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(n)
	}
	policy, _ := kv.ParsePolicy(c.get("maxmemory-policy"))
	s.kv.SetEviction(kv.Eviction{
		MaxMemory:    num("maxmemory"),
		Policy:       policy,
		Samples:      int(min(num("maxmemory-samples"), math.MaxInt32)),
		Tenacity:     int(min(num("maxmemory-eviction-tenacity"), 100)),
		LFULogFactor: int(min(num("lfu-log-factor"), math.MaxInt32)),
		LFUDecayTime: int(min(num("lfu-decay-time"), math.MaxInt32)),
	})
}

// SetConfig sets one CONFIG parameter as CONFIG SET does (the server's
// startup configuration); the error is CONFIG SET's.
func (s *Server) SetConfig(name, value string) error {
	return s.cfg.setMany([][]byte{[]byte(name), []byte(value)})
}

// checkMemory runs the maxmemory rule before cmd; it returns the error that
// refuses it. It records in c.oomBefore whether used memory was over the
// limit with nothing left to evict, for the scripts cmd may run.
func (c *client) checkMemory(tx *kv.Tx, cmd *command, args [][]byte) error {
	c.oomBefore = false
	if c.s.kv.Eviction().MaxMemory == 0 {
		return nil
	}
	var each func(key []byte)
	if c.s.tracking.active.Load() {
		each = func(key []byte) { c.s.tracking.evictedBefore(c, string(key)) }
	}
	oom, err := tx.MakeRoom(each)
	if err != nil || !oom {
		return err
	}
	c.oomBefore = true
	switch {
	case cmd.name == "exec" && c.multi != nil && c.multi.denyOOM():
		c.multi = nil
		c.unwatch()
		return replyErr("EXECABORT Transaction discarded because of: " + errOOM)
	case c.denyOOM(cmd, args):
		return replyErr(errOOM)
	case c.multi != nil:
		switch cmd.name {
		case "exec", "discard", "quit", "reset":
			return nil
		}
		return replyErr(errOOM)
	}
	return nil
}

// denyOOM reports whether cmd may grow memory: flagged denyoom, or a
// script or function whose flags (a shebang's, for a script) include
// neither no-writes nor allow-oom.
func (c *client) denyOOM(cmd *command, args [][]byte) bool {
	if hasFlag(cmd, "denyoom") {
		return true
	}
	var flags script.Flags
	switch {
	case len(args) < 2:
		return false
	case cmd.name == "eval" || cmd.name == "eval_ro":
		f, err := c.s.scripts.Flags(script.SHA1(args[1]), args[1])
		if err != nil {
			return false
		}
		flags = f
	case cmd.name == "evalsha" || cmd.name == "evalsha_ro":
		if len(args[1]) != 40 {
			return false
		}
		f, err := c.s.scripts.Flags(string(args[1]), nil)
		if err != nil {
			return false
		}
		flags = f
	case cmd.name == "fcall" || cmd.name == "fcall_ro":
		f, ok := c.s.scripts.Function(string(args[1]))
		if !ok {
			return false
		}
		flags = f.Flags
	default:
		return false
	}
	return flags&script.FlagEvalCompat == 0 && flags&(script.FlagNoWrites|script.FlagAllowOOM) == 0
}

// denyOOM reports whether the transaction queued a command flagged
// denyoom.
func (m *multiState) denyOOM() bool {
	for _, q := range m.cmds {
		if hasFlag(q.cmd, "denyoom") {
			return true
		}
	}
	return false
}

// notePeakMemory records used as a candidate peak and returns the peak.
func (s *Server) notePeakMemory(used int64) int64 {
	for {
		p := s.peakMemory.Load()
		if used <= p {
			return p
		}
		if s.peakMemory.CompareAndSwap(p, used) {
			return used
		}
	}
}

// evictedBefore sends at once the invalidation of key, evicted before the
// command c is about to run: into c's reply buffer, ahead of the command's
// reply as Redis sends it, when c is a RESP3 client that read key without
// a redirection; queued for every other client that read it. The key is
// then forgotten, so the commit sends nothing more for it (BCAST clients
// get theirs from the commit).
func (t *tracker) evictedBefore(c *client, key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids, ok := t.keys[key]
	if !ok {
		return
	}
	if _, mine := ids[c.id]; mine && c.track != nil && c.track.on && !c.track.bcast && c.track.redirect == 0 && c.proto() >= 3 {
		c.w.Push(2)
		c.w.BulkString("invalidate")
		c.w.Array(1)
		c.w.BulkString(key)
		c.pushing = true
		delete(ids, c.id)
		t.items--
	}
	t.invalidate(key, 0)
}
