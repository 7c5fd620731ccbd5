package resp

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mayfly/mayfly/internal/acl"
	"github.com/mayfly/mayfly/internal/script"
)

// scriptHost runs the commands a script calls (redis.call, redis.pcall)
// through the command table, in the transaction of the EVAL that runs the
// script, with Redis's refusals: unknown commands, wrong arity, commands
// flagged noscript, writes from a read-only script (EVAL_RO), and, over
// maxmemory, a script's first command that may grow the data unless the
// script is flagged allow-oom.
type scriptHost struct {
	x        *cmdCtx
	readOnly bool
	// flags are the script's flags: FlagAllowOOM lets its writes run when
	// memory is over maxmemory.
	flags script.Flags
	w     *Writer
	// run is the script as SCRIPT KILL sees it: Call marks it written.
	run *runningScript
}

// CheckACL says whether the script's user may run args, as
// redis.acl_check_cmd: the command, its keys and channels are checked, not
// its number of arguments, and a refusal is not logged.
func (h *scriptHost) CheckACL(args [][]byte) (allowed, found bool) {
	cmd, err := h.x.s.resolveCommand(args)
	if err != nil {
		return false, false
	}
	u := h.x.c.acct().User()
	if u.Unrestricted() {
		return true, true
	}
	r, _ := h.x.s.acl.check(u, cmd, args)
	return r == acl.OK, true
}

// Call runs args and returns its reply decoded from RESP version proto;
// noWrites (a script declared no-writes) refuses writes as EVAL_RO does.
func (h *scriptHost) Call(args [][]byte, proto int, noWrites bool) script.Reply {
	x := h.x
	s, c := x.s, x.c
	cmd, err := s.lookupCommand(args)
	if err != nil {
		if strings.HasPrefix(err.Error(), "ERR wrong number of arguments") {
			return script.ErrorReply("ERR Wrong number of args calling Redis command from script")
		}
		return script.ErrorReply("ERR Unknown Redis command called from script")
	}
	if hasFlag(cmd, "noscript") && !s.runs.denyDisabled.Load() {
		return script.ErrorReply("ERR This Redis command is not allowed from script")
	}
	if (h.readOnly || noWrites) && (hasFlag(cmd, "write") || hasFlag(cmd, "may_replicate")) {
		return script.ErrorReply("ERR Write commands are not allowed from read-only scripts.")
	}
	if u := c.acct().User(); !u.Unrestricted() {
		if r, pos := s.acl.check(u, cmd, args); r != acl.OK {
			s.acl.refused(c, u, cmd, args, r, pos, aclCtxLua)
			return script.ErrorReply("ERR " + scriptACLError(r))
		}
	}
	if h.flags&script.FlagAllowOOM == 0 && hasFlag(cmd, "denyoom") && (h.run == nil || !h.run.wrote.Load()) && c.oomBefore {
		// Over maxmemory, a script without allow-oom may not start to
		// grow the data; once it wrote, it is not stopped halfway.
		s.cmdStats.rejected(cmd)
		return script.ErrorReply(errOOM)
	}
	if h.w == nil {
		h.w = NewWriter(proto)
	}
	h.w.Reset()
	h.w.SetProto(proto)
	if h.run != nil && hasFlag(cmd, "write") {
		h.run.wrote.Store(true)
	}
	sub := &cmdCtx{s: s, c: c, tx: x.tx, w: h.w, args: args, cmd: cmd}
	start := time.Now()
	err = cmd.handler(sub)
	if c.track != nil && cmd.has(flagReadOnly) {
		// A script that reads tracks the keys the script declares.
		s.tracking.remember(c, x.tx, x.cmd, x.args)
	}
	s.cmdStats.called(cmd, time.Since(start), err != nil)
	s.feedMonitorsFrom("lua", cmd, x.tx.DB(), args)
	if err != nil {
		msg := string(commandError(err, cmd.name))
		s.cmdStats.errorReply(msg)
		return script.ErrorReply(msg)
	}
	r, _ := decodeReply(h.w.Bytes())
	return r
}

func hasFlag(c *command, flag string) bool {
	for _, f := range c.flags {
		if f == flag {
			return true
		}
	}
	return false
}

// decodeReply decodes the first RESP2 or RESP3 reply in b and returns the
// rest. b comes from Writer, so it is well formed.
func decodeReply(b []byte) (script.Reply, []byte) {
	if len(b) == 0 {
		return script.Reply{Kind: script.Nil}, nil
	}
	t := b[0]
	end := bytes.Index(b, []byte("\r\n"))
	if end < 0 {
		return script.Reply{Kind: script.Nil}, nil
	}
	line, rest := b[1:end], b[end+2:]
	switch t {
	case '+':
		return script.Reply{Kind: script.Status, Str: append([]byte(nil), line...)}, rest
	case '-':
		return script.Reply{Kind: script.Error, Str: append([]byte(nil), line...)}, rest
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		return script.Reply{Kind: script.Int, Int: n}, rest
	case '_':
		return script.Reply{Kind: script.Nil}, rest
	case '#':
		return script.Reply{Kind: script.Bool, Bool: len(line) > 0 && line[0] == 't'}, rest
	case ',':
		return script.Reply{Kind: script.Double, Float: parseRESPDouble(string(line))}, rest
	case '(':
		return script.Reply{Kind: script.BigNumber, Str: append([]byte(nil), line...)}, rest
	case '$', '=':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return script.Reply{Kind: script.Nil}, rest
		}
		n = min(n, len(rest))
		data := append([]byte(nil), rest[:n]...)
		rest = rest[min(n+2, len(rest)):]
		if t == '=' && len(data) >= 4 {
			return script.Reply{Kind: script.Verbatim, Format: string(data[:3]), Str: data[4:]}, rest
		}
		return script.Reply{Kind: script.Bulk, Str: data}, rest
	case '|':
		// An attribute: its pairs are not shown to scripts; the reply
		// it annotates follows.
		n, _ := strconv.Atoi(string(line))
		for range 2 * n {
			_, rest = decodeReply(rest)
		}
		return decodeReply(rest)
	case '*', '~', '%', '>':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return script.Reply{Kind: script.NullArray}, rest
		}
		kind := script.Array
		switch t {
		case '~':
			kind = script.Set
		case '%':
			kind, n = script.Map, 2*n
		}
		r := script.Reply{Kind: kind, Elems: make([]script.Reply, 0, n)}
		for range n {
			var e script.Reply
			e, rest = decodeReply(rest)
			r.Elems = append(r.Elems, e)
		}
		return r, rest
	}
	return script.Reply{Kind: script.Nil}, rest
}

func parseRESPDouble(s string) float64 {
	switch s {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	case "nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// writeScriptReply writes a script's reply in the client's protocol.
func writeScriptReply(w *Writer, r script.Reply) {
	switch r.Kind {
	case script.Nil:
		w.Null()
	case script.NullArray:
		w.NullArray()
	case script.Status:
		w.Simple(string(r.Str))
	case script.Error:
		w.Error(string(r.Str))
	case script.Int:
		w.Int(r.Int)
	case script.Bulk:
		w.Bulk(r.Str)
	case script.Array, script.Set, script.Map:
		switch r.Kind {
		case script.Array:
			w.Array(len(r.Elems))
		case script.Set:
			w.Set(len(r.Elems))
		case script.Map:
			w.Map(len(r.Elems) / 2)
		}
		for _, e := range r.Elems {
			writeScriptReply(w, e)
		}
	case script.Double:
		w.Double(r.Float)
	case script.Bool:
		w.Bool(r.Bool)
	case script.BigNumber:
		if w.Proto() >= 3 {
			w.Raw([]byte("(" + string(r.Str) + "\r\n"))
		} else {
			w.Bulk(r.Str)
		}
	case script.Verbatim:
		if w.Proto() >= 3 && len(r.Format) == 3 {
			w.Raw([]byte("=" + strconv.Itoa(len(r.Str)+4) + "\r\n" + r.Format + ":" + string(r.Str) + "\r\n"))
		} else {
			w.Bulk(r.Str)
		}
	}
}
