package resp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var errClientName = replyErr("ERR Client names cannot contain spaces, newlines or special characters.")

// validClientName allows printable ASCII without spaces, as Redis does.
func validClientName(b []byte) bool {
	for _, c := range b {
		if c < '!' || c > '~' {
			return false
		}
	}
	return true
}

var cmdClient = container("client", "", "slow", "connection", "2.4.0", "A container for client connection commands.",
	def(cmdSpec{
		Name: "client|id", Arity: 2, Flags: "noscript loading stale",
		ACL: "slow connection", Group: "connection", Since: "5.0.0",
		Summary:    "Returns the unique client ID of the connection.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.w.Int(int64(x.c.id))
			return nil
		},
	}),
	def(cmdSpec{
		Name: "client|setname", Arity: 3, Flags: "noscript loading stale",
		ACL: "slow connection", Group: "connection", Since: "2.6.9",
		Summary:    "Sets the connection name.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if !validClientName(x.args[2]) {
				return errClientName
			}
			x.c.mu.Lock()
			x.c.name = string(x.args[2])
			x.c.mu.Unlock()
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "client|getname", Arity: 2, Flags: "noscript loading stale",
		ACL: "slow connection", Group: "connection", Since: "2.6.9",
		Summary:    "Returns the name of the connection.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.c.mu.Lock()
			name := x.c.name
			x.c.mu.Unlock()
			if name == "" {
				x.w.Null()
			} else {
				x.w.BulkString(name)
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "client|setinfo", Arity: 4, Flags: "noscript loading stale",
		ACL: "slow connection", Group: "connection", Since: "7.2.0",
		Summary:    "Sets information specific to the client or connection.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if !argEq(x.args[2], "lib-name") && !argEq(x.args[2], "lib-ver") {
				return replyErr("ERR Unrecognized option '" + string(x.args[2]) + "'")
			}
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "client|no-evict", Arity: 3, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous connection", Group: "connection", Since: "7.0.0",
		Summary:    "Sets the client eviction mode of the connection.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if !argEq(x.args[2], "on") && !argEq(x.args[2], "off") {
				return errSyntax
			}
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "client|info", Arity: 2, Flags: "noscript loading stale",
		ACL: "slow connection", Group: "connection", Since: "6.2.0",
		Summary:    "Returns information about the connection.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.w.Verbatim(x.c.describe() + "\n")
			return nil
		},
	}),
	def(cmdSpec{
		Name: "client|list", Arity: -2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous connection", Group: "connection", Since: "2.4.0",
		Summary:    "Lists open connections.",
		Complexity: "O(N) where N is the number of client connections",
		Handler:    clientList,
	}),
	def(cmdSpec{
		Name: "client|kill", Arity: -3, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous connection", Group: "connection", Since: "2.4.0",
		Summary:    "Terminates open connections.",
		Complexity: "O(N) where N is the number of client connections",
		Handler:    clientKill,
	}),
	cmdClientUnblock,
	cmdClientTracking,
	cmdClientCaching,
	cmdClientGetredir,
	cmdClientTrackinginfo,
	def(cmdSpec{
		Name: "client|reply", Arity: 3, Flags: "noscript loading stale",
		ACL: "slow connection", Group: "connection", Since: "3.2.0",
		Summary:    "Instructs the server whether to reply to commands.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			switch {
			case argEq(x.args[2], "on"):
				x.c.replyOff, x.c.replySkip, x.c.skipCurrent = false, 0, false
				x.w.OK()
			case argEq(x.args[2], "off"):
				x.c.replyOff = true
			case argEq(x.args[2], "skip"):
				if !x.c.replyOff {
					x.c.replySkip = 1
				}
			default:
				return errSyntax
			}
			return nil
		},
	}),
	helpCmd("client", "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CACHING (YES|NO)", "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
		"GETNAME", "    Return the name of the current connection.",
		"ID", "    Return the ID of the current connection.",
		"INFO", "    Return information about the current client connection.",
		"KILL <ip:port>", "    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)", "      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)", "      Kill connections made to specified local address",
		"    * ID <client-id>", "      Kill connections by client id.",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Kill connections by type.",
		"    * USER <username>", "      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)", "      Skip killing current connection (default: yes).",
		"LIST [options ...]", "    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Return clients of specified type.",
		"    * ID <client-id> [<client-id> ...]", "      Return clients of specified IDs only.",
		"REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
		"SETNAME <name>", "    Assign the name <name> to the current connection.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]", "         [OPTIN] [OPTOUT] [NOLOOP]",
		"    Control server assisted client side caching.",
		"TRACKINGINFO", "    Report tracking status for the current connection.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client."),
)

// describe renders the client as one CLIENT LIST line.
func (c *client) describe() string {
	c.mu.Lock()
	name, db, cmd := c.name, c.db, c.lastName
	multi := -1
	if c.multi != nil {
		multi = len(c.multi.cmds)
	}
	c.mu.Unlock()
	now := c.s.opts.Now()
	age := int64(now.Sub(c.created).Seconds())
	idle := (now.UnixMilli() - c.lastCmd.Load()) / 1000
	ch := len(c.s.hub.list(c, false))
	pat := len(c.s.hub.list(c, true))
	flags := ""
	if ch+pat > 0 {
		flags += "P"
	}
	if multi >= 0 {
		flags += "x"
	}
	redir := int64(-1)
	if tr := c.s.tracking.state(c); tr.on {
		flags += "t"
		if tr.broken {
			flags += "R"
		}
		if tr.bcast {
			flags += "B"
		}
		redir = int64(tr.redirect)
	}
	if flags == "" {
		flags = "N"
	}
	if cmd == "" {
		cmd = "NULL"
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=0 name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=0 multi=%d qbuf=%d qbuf-free=%d argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=%s redir=%d resp=%d",
		c.id, c.nc.RemoteAddr(), c.nc.LocalAddr(), name, age, max(idle, 0), flags, db, ch, pat, multi, c.qbuf.Load(), c.qbufFree.Load(), cmd, c.userName(), redir, c.proto())
}

func (s *Server) clientsSorted() []*client {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func clientList(x *cmdCtx) error {
	var ids map[uint64]bool
	typ := ""
	for i := 2; i < len(x.args); i++ {
		switch {
		case argEq(x.args[i], "type") && i+1 < len(x.args):
			i++
			t := strings.ToLower(string(x.args[i]))
			switch t {
			case "normal", "pubsub", "master", "replica", "slave":
				typ = t
			default:
				return replyErr("ERR Unknown client type '" + string(x.args[i]) + "'")
			}
		case argEq(x.args[i], "id") && i+1 < len(x.args):
			ids = map[uint64]bool{}
			for i++; i < len(x.args); i++ {
				id, err := strconv.ParseUint(string(x.args[i]), 10, 64)
				if err != nil || id == 0 {
					return replyErr("ERR Invalid client ID")
				}
				ids[id] = true
			}
		default:
			return errSyntax
		}
	}
	var b strings.Builder
	for _, c := range x.s.clientsSorted() {
		if c.dead.Load() || (ids != nil && !ids[c.id]) {
			continue
		}
		if !clientOfType(c, typ) {
			continue
		}
		b.WriteString(c.describe())
		b.WriteByte('\n')
	}
	x.w.Verbatim(b.String())
	return nil
}

// clientKill is CLIENT KILL addr (the old form, which may kill the caller
// and answers OK or "No such client") and CLIENT KILL with filters (ID,
// ADDR, LADDR, TYPE, USER, SKIPME), which answers the number killed, with
// Redis 7's errors for each filter's value.
func clientKill(x *cmdCtx) error {
	if len(x.args) == 3 {
		n := 0
		for _, c := range x.s.clientsSorted() {
			if c.nc.RemoteAddr().String() == string(x.args[2]) {
				killClient(x, c)
				n++
			}
		}
		if n == 0 {
			return replyErr("ERR No such client")
		}
		x.w.OK()
		return nil
	}
	var id uint64
	var addr, laddr, typ, user string
	skipme := true
	for i := 2; i < len(x.args); i += 2 {
		if i+1 >= len(x.args) {
			return errSyntax
		}
		v := string(x.args[i+1])
		switch {
		case argEq(x.args[i], "id"):
			n, err := parseRangeLong(x.args[i+1], 1, math.MaxInt64, "client-id should be greater than 0")
			if err != nil {
				return err
			}
			id = uint64(n)
		case argEq(x.args[i], "type"):
			switch t := strings.ToLower(v); t {
			case "normal", "pubsub", "master", "replica", "slave":
				typ = t
			default:
				return replyErr("ERR Unknown client type '" + v + "'")
			}
		case argEq(x.args[i], "addr"):
			addr = v
		case argEq(x.args[i], "laddr"):
			laddr = v
		case argEq(x.args[i], "user"):
			if x.s.acl.reg.Account(v) == nil {
				return replyErr("ERR No such user '" + v + "'")
			}
			user = v
		case argEq(x.args[i], "skipme"):
			switch {
			case argEq(x.args[i+1], "yes"):
				skipme = true
			case argEq(x.args[i+1], "no"):
				skipme = false
			default:
				return errSyntax
			}
		default:
			return errSyntax
		}
	}
	n := 0
	for _, c := range x.s.clientsSorted() {
		if (id != 0 && c.id != id) || (addr != "" && c.nc.RemoteAddr().String() != addr) ||
			(laddr != "" && c.nc.LocalAddr().String() != laddr) || !clientOfType(c, typ) ||
			(skipme && c == x.c) || (user != "" && c.userName() != user) {
			continue
		}
		killClient(x, c)
		n++
	}
	x.w.Int(int64(n))
	return nil
}

// clientOfType reports whether c is of the CLIENT KILL / CLIENT LIST type
// typ ("" for any): normal or pubsub; there are no master or replica
// connections.
func clientOfType(c *client, typ string) bool {
	pubsub := c.subscriptions() > 0
	switch typ {
	case "":
		return true
	case "normal":
		return !pubsub
	case "pubsub":
		return pubsub
	}
	return false
}

// killClient closes c; the current client is closed after its reply.
func killClient(x *cmdCtx, c *client) {
	if c == x.c {
		c.closeNext = true
		return
	}
	c.kill()
}
