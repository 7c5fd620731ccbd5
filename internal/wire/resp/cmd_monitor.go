package resp

import (
	"fmt"
	"strings"
)

var cmdMonitor = def(cmdSpec{
	Name: "monitor", Arity: 1, Flags: "admin noscript loading stale",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Listens for all requests received by the server in real-time.",
	Complexity: "",
	Handler:    monitor,
})

// monitor is MONITOR: from its OK on, the client is sent a line for every
// command any client runs (feedMonitors). A client already monitoring
// gets no reply, as in Redis; inside EXEC it is refused.
func monitor(x *cmdCtx) error {
	if inExec(x) {
		return replyErr("ERR MONITOR isn't allowed for DENY BLOCKING client")
	}
	s := x.s
	s.monitorMu.Lock()
	_, already := s.monitors[x.c]
	if !already {
		s.monitors[x.c] = struct{}{}
		s.monitorN.Add(1)
	}
	s.monitorMu.Unlock()
	if already {
		return nil
	}
	x.c.startPusher()
	x.w.OK()
	return nil
}

// unmonitor ends c's MONITOR (RESET, or its connection closing).
func (s *Server) unmonitor(c *client) {
	s.monitorMu.Lock()
	if _, ok := s.monitors[c]; ok {
		delete(s.monitors, c)
		s.monitorN.Add(-1)
	}
	s.monitorMu.Unlock()
}

// feedMonitors sends the monitoring clients the line Redis sends for a
// command c ran in db: "+<seconds>.<microseconds> [<db> <addr>] "arg" ...",
// each argument quoted and escaped as Redis's sdscatrepr does, and AUTH's
// and HELLO's credentials redacted. Administrative commands are not shown.
func (s *Server) feedMonitors(c *client, cmd *command, db int, args [][]byte) {
	if s.monitorN.Load() == 0 || cmd.has(flagSkipMonitor) {
		return // a skip_monitor command (EVAL) feeds itself, before what it runs
	}
	s.feedMonitorsFrom(c.nc.RemoteAddr().String(), cmd, db, args)
}

// feedMonitorsFrom streams a command to the monitors, naming where it came
// from: the client's address, or "lua" for a command a script called.
func (s *Server) feedMonitorsFrom(origin string, cmd *command, db int, args [][]byte) {
	if s.monitorN.Load() == 0 || cmd.has(flagAdmin) {
		return
	}
	var b strings.Builder
	now := s.opts.Now()
	fmt.Fprintf(&b, "+%d.%06d [%d %s]", now.Unix(), now.Nanosecond()/1000, db, origin)
	redact := redactedArgs(cmd, args)
	for i, a := range args {
		b.WriteByte(' ')
		if redact(i) {
			a = []byte("(redacted)")
		}
		writeRepr(&b, a)
	}
	b.WriteString("\r\n")
	line := []byte(b.String())
	s.monitorMu.Lock()
	for m := range s.monitors {
		m.deliver(line)
	}
	s.monitorMu.Unlock()
}

// redactedArgs says which arguments MONITOR hides: every argument of AUTH,
// and the two after HELLO's AUTH.
func redactedArgs(cmd *command, args [][]byte) func(int) bool {
	switch cmd.name {
	case "auth":
		return func(i int) bool { return i >= 1 }
	case "hello":
		for i := 2; i < len(args); i++ {
			if argEq(args[i], "auth") {
				return func(j int) bool { return j == i+1 || j == i+2 }
			}
		}
	}
	return func(int) bool { return false }
}

// writeRepr writes a quoted, escaped as Redis's sdscatrepr: \\ \" \n \r
// \t \a \b, printable ASCII as it is, any other byte as \xHH.
func writeRepr(b *strings.Builder, a []byte) {
	b.WriteByte('"')
	for _, ch := range a {
		switch ch {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if ch >= 0x20 && ch < 0x7f {
				b.WriteByte(ch)
			} else {
				fmt.Fprintf(b, `\x%02x`, ch)
			}
		}
	}
	b.WriteByte('"')
}
