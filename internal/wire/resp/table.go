package resp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mayfly/mayfly/internal/kv"
)

// cmdCtx is what a handler gets: the server, the client, the open kv
// transaction, the reply writer and the arguments (args[0] is the command
// name; for a subcommand args[1] is its name). Handlers write their reply
// to w, or return an error that becomes the error reply.
type cmdCtx struct {
	s    *Server
	c    *client
	tx   *kv.Tx
	w    *Writer
	args [][]byte
	cmd  *command
}

// Internal properties of commands, derived from their Redis flags and
// names.
const (
	flagNoAuth       = 1 << iota // allowed before AUTH
	flagPubSubOK                 // allowed in the RESP2 pub/sub context
	flagMultiControl             // executed, not queued, inside MULTI
	flagNoMulti                  // refused inside MULTI (Redis's no_multi)
	flagAdmin                    // administrative: not shown to MONITOR
	flagSkipMonitor              // shown to MONITOR by its handler (EVAL, before its script's commands)
	flagSkipSlowlog              // not logged in the slow log (EXEC: its commands are)
	flagReadOnly                 // reads keys only: a tracking client remembers them
)

// command is one entry of the command table: what COMMAND reports and the
// handler.
type command struct {
	name       string // full lowercase name, "get" or "config|get"
	arity      int    // argument count with the name; -n means at least n
	flags      []string
	first      int // first key argument, 0 for none
	last       int // last key argument, negative counts from the end
	step       int
	acl        []string
	group      string
	since      string
	summary    string
	complexity string
	handler    func(*cmdCtx) error
	subs       map[string]*command
	internal   int
}

func (c *command) has(f int) bool { return c.internal&f != 0 }

// cmdSpec is one command as the table declares it, with Redis's COMMAND
// metadata: Flags and ACL are space separated, ACL categories without their
// '@'; FirstKey, LastKey and Step locate the key arguments (0 for none, a
// negative LastKey counts from the end).
type cmdSpec struct {
	Name       string // full lowercase name, "get" or "config|get"
	Arity      int    // argument count with the name; -n means at least n
	Flags      string
	FirstKey   int
	LastKey    int
	Step       int
	ACL        string
	Group      string
	Since      string
	Summary    string
	Complexity string
	Handler    func(*cmdCtx) error
}

// def builds a command from its declaration.
func def(sp cmdSpec) *command {
	name, acl := sp.Name, sp.ACL
	c := &command{
		name: name, arity: sp.Arity, flags: strings.Fields(sp.Flags), first: sp.FirstKey, last: sp.LastKey,
		step: sp.Step, group: sp.Group, since: sp.Since, summary: sp.Summary, complexity: sp.Complexity,
		handler: sp.Handler,
	}
	for _, a := range strings.Fields(acl) {
		c.acl = append(c.acl, "@"+a)
	}
	for _, f := range c.flags {
		switch f {
		case "no_auth":
			c.internal |= flagNoAuth
		case "no_multi":
			c.internal |= flagNoMulti
		case "admin":
			c.internal |= flagAdmin
		case "skip_monitor":
			c.internal |= flagSkipMonitor
		case "skip_slowlog":
			c.internal |= flagSkipSlowlog
		case "readonly":
			c.internal |= flagReadOnly
		}
	}
	switch name {
	case "subscribe", "psubscribe", "unsubscribe", "punsubscribe", "ping", "quit", "reset", "ssubscribe", "sunsubscribe":
		c.internal |= flagPubSubOK
	}
	switch name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		c.internal |= flagMultiControl
	}
	return c
}

// container builds a command with subcommands (CONFIG, CLIENT, ...).
func container(name, flags, acl, group, since, summary string, subs ...*command) *command {
	c := def(cmdSpec{
		Name: name, Arity: -2, Flags: flags,
		ACL: acl, Group: group, Since: since,
		Summary:    summary,
		Complexity: "Depends on subcommand.",
	})
	c.subs = make(map[string]*command)
	for _, s := range subs {
		c.subs[strings.TrimPrefix(s.name, name+"|")] = s
	}
	return c
}

// commandTable returns every command by lowercase name.
func commandTable() map[string]*command {
	m := make(map[string]*command)
	for _, c := range allCommands() {
		if _, dup := m[c.name]; dup {
			panic("resp: duplicate command " + c.name)
		}
		m[c.name] = c
	}
	return m
}

func lowerASCII(dst, b []byte) []byte {
	dst = dst[:0]
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// lookupCommand resolves args to a command and checks its arity, with
// Redis's error replies.
func (s *Server) lookupCommand(args [][]byte) (*command, error) {
	cmd, err := s.resolveCommand(args)
	if err != nil {
		return nil, err
	}
	if (cmd.arity > 0 && cmd.arity != len(args)) || len(args) < -cmd.arity {
		return nil, errArity(cmd.name)
	}
	return cmd, nil
}

// resolveCommand finds the command or subcommand args name, not checking
// the number of arguments.
func (s *Server) resolveCommand(args [][]byte) (*command, error) {
	var tmp [32]byte
	name := lowerASCII(tmp[:0], args[0])
	cmd := s.cmds[string(name)]
	if cmd == nil {
		return nil, unknownCommand(args)
	}
	if cmd.subs != nil && len(args) >= 2 && !(cmd.handler != nil && len(args) == 1) {
		var tmp2 [32]byte
		sub := cmd.subs[string(lowerASCII(tmp2[:0], args[1]))]
		if sub == nil {
			return nil, replyErr(fmt.Sprintf("ERR unknown subcommand '%.128s'. Try %s HELP.", args[1], strings.ToUpper(cmd.name)))
		}
		cmd = sub
	}
	return cmd, nil
}

func unknownCommand(args [][]byte) error {
	var b strings.Builder
	for _, a := range args[1:] {
		if b.Len() >= 128 {
			break
		}
		fmt.Fprintf(&b, "'%.*s' ", 128-b.Len(), a)
	}
	return replyErr(fmt.Sprintf("ERR unknown command '%.128s', with args beginning with: %s", args[0], b.String()))
}

// sortedCommands returns the top-level commands in name order.
func (s *Server) sortedCommands() []*command {
	out := make([]*command, 0, len(s.cmds))
	for _, c := range s.cmds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func sortedSubs(c *command) []*command {
	out := make([]*command, 0, len(c.subs))
	for _, s := range c.subs {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writeInfo writes one command as COMMAND and COMMAND INFO describe it.
func writeCommandInfo(w *Writer, c *command) {
	w.Array(10)
	w.BulkString(c.name)
	w.Int(int64(c.arity))
	w.Set(len(c.flags))
	for _, f := range c.flags {
		w.Simple(f)
	}
	w.Int(int64(c.first))
	w.Int(int64(c.last))
	w.Int(int64(c.step))
	w.Set(len(c.acl))
	for _, a := range c.acl {
		w.Simple(a)
	}
	tips := commandTips[c.name]
	w.Set(len(tips))
	for _, t := range tips {
		w.Simple(t)
	}
	if kn, ok := keynumCommands[c.name]; ok {
		if kn.dest > 0 {
			w.Array(2)
			writeRangeSpec(w, c)
		} else {
			w.Array(1)
		}
		writeKeynumSpec(w, kn.spec)
	} else if c.first > 0 {
		w.Array(1)
		writeRangeSpec(w, c)
	} else if c.name == "xread" || c.name == "xreadgroup" {
		w.Array(1)
		writeXReadKeySpec(w, map[string]int{"xread": 1, "xreadgroup": 4}[c.name])
	} else {
		w.Array(0)
	}
	subs := sortedSubs(c)
	w.Array(len(subs))
	for _, s := range subs {
		writeCommandInfo(w, s)
	}
}

// writeBeginSearch opens a key spec (a map of flags, begin_search and
// find_keys, the caller writing find_keys): the flags given, and the
// search begins at argument index.
func writeBeginSearch(w *Writer, index int, flags ...string) {
	w.Map(3)
	w.BulkString("flags")
	w.Set(len(flags))
	for _, f := range flags {
		w.Simple(f)
	}
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("index")
	w.BulkString("spec")
	w.Map(1)
	w.BulkString("index")
	w.Int(int64(index))
}

// writeRangeSpec describes the key arguments as one range key spec.
func writeRangeSpec(w *Writer, c *command) {
	if aclNotKeys[c.name] {
		writeBeginSearch(w, c.first, "not_key")
	} else {
		writeBeginSearch(w, c.first)
	}
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("range")
	w.BulkString("spec")
	w.Map(3)
	lastkey := c.last
	if lastkey > 0 {
		lastkey -= c.first
	}
	w.BulkString("lastkey")
	w.Int(int64(lastkey))
	w.BulkString("keystep")
	w.Int(int64(c.step))
	w.BulkString("limit")
	w.Int(0)
}

// keyIndexes returns the positions of the key arguments of a call.
func keyIndexes(c *command, argc int) []int {
	if c.first <= 0 {
		return nil
	}
	last := c.last
	if last < 0 {
		last = argc + last
	}
	var out []int
	for i := c.first; i <= last && i < argc; i += max(c.step, 1) {
		out = append(out, i)
	}
	return out
}
