package resp

var cmdSlowlog = container("slowlog", "", "slow", "server", "2.2.12", "A container for slow log commands",
	def(cmdSpec{
		Name: "slowlog|get", Arity: -2, Flags: "admin loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.2.12",
		Summary:    "Get the slow log's entries",
		Complexity: "O(N) where N is the number of entries returned",
		Handler: func(x *cmdCtx) error {
			n := int64(10)
			if len(x.args) > 3 {
				return errArity("slowlog|get")
			}
			if len(x.args) == 3 {
				v, err := parseInt(x.args[2])
				if err != nil || v < -1 {
					return replyErr("ERR count should be greater than or equal to -1")
				}
				n = v
			}
			entries := x.s.slowlog.get(n)
			x.w.Array(len(entries))
			for _, e := range entries {
				x.w.Array(6)
				x.w.Int(e.id)
				x.w.Int(e.at)
				x.w.Int(e.usec)
				x.w.Array(len(e.args))
				for _, a := range e.args {
					x.w.BulkString(a)
				}
				x.w.BulkString(e.addr)
				x.w.BulkString(e.name)
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "slowlog|len", Arity: 2, Flags: "admin loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.2.12",
		Summary:    "Get the slow log's length",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.w.Int(int64(x.s.slowlog.len()))
			return nil
		},
	}),
	def(cmdSpec{
		Name: "slowlog|reset", Arity: 2, Flags: "admin loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.2.12",
		Summary:    "Clear all entries from the slow log",
		Complexity: "O(N) where N is the number of entries in the slowlog",
		Handler: func(x *cmdCtx) error {
			x.s.slowlog.reset()
			x.w.OK()
			return nil
		},
	}),
	helpCmd("slowlog", "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET [<count>]", "    Return top <count> entries from the slowlog (default: 10, -1 mean all).", "    Entries are made of:", "    id, timestamp, time in microseconds, arguments array, client IP and port,", "    client name",
		"LEN", "    Return the length of the slowlog.",
		"RESET", "    Reset the slowlog."),
)
