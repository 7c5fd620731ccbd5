package resp

import "strings"

var cmdCommand = func() *command {
	c := container("command", "loading stale", "slow connection", "server", "2.8.13", "Returns detailed information about all commands.",
		def(cmdSpec{
			Name: "command|count", Arity: 2, Flags: "loading stale",
			ACL: "slow connection", Group: "server", Since: "2.8.13",
			Summary:    "Returns a count of commands.",
			Complexity: "O(1)",
			Handler: func(x *cmdCtx) error {
				x.w.Int(int64(len(x.s.cmds)))
				return nil
			},
		}),
		def(cmdSpec{
			Name: "command|info", Arity: -2, Flags: "loading stale",
			ACL: "slow connection", Group: "server", Since: "2.8.13",
			Summary:    "Returns information about one, multiple or all commands.",
			Complexity: "O(N) where N is the number of commands to look up",
			Handler: func(x *cmdCtx) error {
				if len(x.args) == 2 {
					return commandAll(x)
				}
				x.w.Array(len(x.args) - 2)
				for _, n := range x.args[2:] {
					if c := x.s.findCommand(string(n)); c != nil {
						writeCommandInfo(x.w, c)
					} else {
						x.w.NullArray()
					}
				}
				return nil
			},
		}),
		def(cmdSpec{
			Name: "command|docs", Arity: -2, Flags: "loading stale",
			ACL: "slow connection", Group: "server", Since: "7.0.0",
			Summary:    "Returns documentary information about one, multiple or all commands.",
			Complexity: "O(N) where N is the number of commands to look up",
			Handler: func(x *cmdCtx) error {
				var cmds []*command
				if len(x.args) == 2 {
					cmds = x.s.sortedCommands()
				} else {
					for _, n := range x.args[2:] {
						if c := x.s.findCommand(string(n)); c != nil {
							cmds = append(cmds, c)
						}
					}
				}
				x.w.Map(len(cmds))
				for _, c := range cmds {
					x.w.BulkString(c.name)
					writeCommandDocs(x.w, c)
				}
				return nil
			},
		}),
		def(cmdSpec{
			Name: "command|list", Arity: -2, Flags: "loading stale",
			ACL: "slow connection", Group: "server", Since: "7.0.0",
			Summary:    "Returns a list of command names.",
			Complexity: "O(N) where N is the total number of Redis commands",
			Handler: func(x *cmdCtx) error {
				var filter func(*command) bool
				if len(x.args) > 2 {
					if len(x.args) != 5 || !argEq(x.args[2], "filterby") {
						return errSyntax
					}
					v := string(x.args[4])
					switch {
					case argEq(x.args[3], "module"):
						filter = func(*command) bool { return false }
					case argEq(x.args[3], "aclcat"):
						filter = func(c *command) bool {
							for _, a := range c.acl {
								if strings.EqualFold(a, "@"+v) {
									return true
								}
							}
							return false
						}
					case argEq(x.args[3], "pattern"):
						filter = func(c *command) bool { return matchName(v, c.name) }
					default:
						return errSyntax
					}
				}
				var names []string
				for _, c := range x.s.sortedCommands() {
					if filter == nil || filter(c) {
						names = append(names, c.name)
					}
					for _, s := range sortedSubs(c) { // listed with or without a filter, as Redis does
						if filter == nil || filter(s) {
							names = append(names, s.name)
						}
					}
				}
				x.w.Array(len(names))
				for _, n := range names {
					x.w.BulkString(n)
				}
				return nil
			},
		}),
		def(cmdSpec{
			Name: "command|getkeys", Arity: -4, Flags: "loading stale",
			ACL: "slow connection", Group: "server", Since: "2.8.13",
			Summary:    "Extracts the key names from an arbitrary command.",
			Complexity: "O(N) where N is the number of arguments to the command",
			Handler: func(x *cmdCtx) error {
				c, err := x.s.lookupCommand(x.args[2:])
				if err != nil {
					return replyErr("ERR Invalid command specified")
				}
				idx, ok := commandKeyIndexes(c, x.args[2:])
				if !ok {
					return replyErr("ERR Invalid arguments specified for command")
				}
				if from, ok := geoRadiusOptionsAt[c.name]; ok {
					idx = geoRadiusKeyIndexes(x.args[2:], from)
				}
				if aclNotKeys[c.name] {
					// Shard channels are key specs flagged not a key.
					idx = nil
				}
				if len(idx) == 0 {
					return replyErr("ERR The command has no key arguments")
				}
				x.w.Array(len(idx))
				for _, i := range idx {
					x.w.Bulk(x.args[2+i])
				}
				return nil
			},
		}),
		helpCmd("command", "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"(no subcommand)", "    Return details about all Redis commands.",
			"COUNT", "    Return the total number of commands in this Redis server.",
			"LIST", "    Return a list of all commands in this Redis server.",
			"INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
			"    If no command names are given, documentation details for all", "    commands are returned.",
			"DOCS [<command-name> ...]", "    Return documentation details about multiple Redis commands.",
			"    If no command names are given, documentation details for all", "    commands are returned.",
			"GETKEYS <full-command>", "    Return the keys from a full Redis command."),
	)
	c.arity = -1
	c.handler = commandAll
	return c
}()

func commandAll(x *cmdCtx) error {
	cmds := x.s.sortedCommands()
	x.w.Array(len(cmds))
	for _, c := range cmds {
		writeCommandInfo(x.w, c)
	}
	return nil
}

// findCommand finds a command by name, "config|get" naming a subcommand.
func (s *Server) findCommand(name string) *command {
	name = strings.ToLower(name)
	top, sub, ok := strings.Cut(name, "|")
	c := s.cmds[top]
	if c == nil || !ok {
		return c
	}
	return c.subs[sub]
}

func matchName(pattern, name string) bool {
	return globMatch(pattern, name)
}

func writeCommandDocs(w *Writer, c *command) {
	subs := sortedSubs(c)
	n := 3
	if c.complexity != "" { // MONITOR has none, and Redis leaves the field out
		n++
	}
	if _, ok := deprecatedCommands[c.name]; ok {
		n += 3
	}
	if len(subs) > 0 {
		n++
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(c.summary)
	w.BulkString("since")
	w.BulkString(c.since)
	w.BulkString("group")
	w.BulkString(c.group)
	if c.complexity != "" {
		w.BulkString("complexity")
		w.BulkString(c.complexity)
	}
	if d, ok := deprecatedCommands[c.name]; ok {
		w.BulkString("doc_flags")
		w.Set(1)
		w.Simple("deprecated")
		w.BulkString("deprecated_since")
		w.BulkString(d.since)
		w.BulkString("replaced_by")
		w.BulkString(d.replacedBy)
	}
	if len(subs) > 0 {
		w.BulkString("subcommands")
		w.Map(len(subs))
		for _, s := range subs {
			w.BulkString(s.name)
			writeCommandDocs(w, s)
		}
	}
}

// commandKeyIndexes returns the positions in args (args[0] the command's
// name) of c's key arguments; false when the arguments that count the
// keys are wrong.
func commandKeyIndexes(c *command, args [][]byte) ([]int, bool) {
	idx := keyIndexes(c, len(args))
	if kn, ok := keynumCommands[c.name]; ok {
		if idx, ok = keynumIndexes(kn.dest, kn.spec, args); !ok {
			return nil, false
		}
	}
	switch c.name {
	case "sort":
		idx = sortKeyIndexes(args)
	case "xread", "xreadgroup":
		from := 1
		if c.name == "xreadgroup" {
			from = 4
		}
		if idx = xreadKeyIndexes(args, from); idx == nil {
			return nil, false
		}
	}
	return idx, true
}
