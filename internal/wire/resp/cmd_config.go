package resp

var cmdConfig = container("config", "", "slow", "server", "2.0.0", "A container for server configuration commands.",
	def(cmdSpec{
		Name: "config|get", Arity: -3, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.0.0",
		Summary:    "Returns the effective values of configuration parameters.",
		Complexity: "O(N) when N is the number of configuration parameters provided",
		Handler: func(x *cmdCtx) error {
			pairs := x.s.cfg.getAll(x.args[2:])
			x.w.Map(len(pairs))
			for _, kv := range pairs {
				x.w.BulkString(kv[0])
				x.w.BulkString(kv[1])
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "config|set", Arity: -4, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.0.0",
		Summary:    "Sets configuration parameters in-flight.",
		Complexity: "O(N) when N is the number of configuration parameters provided",
		Handler: func(x *cmdCtx) error {
			if len(x.args)%2 != 0 {
				return errSyntax
			}
			if err := x.s.cfg.setMany(x.args[2:]); err != nil {
				return err
			}
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "config|resetstat", Arity: 2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.0.0",
		Summary:    "Resets the server's statistics.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.s.resetStats()
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "config|rewrite", Arity: 2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.0",
		Summary:    "Persists the effective configuration to file.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			return replyErr("ERR The server is running without a config file")
		},
	}),
	helpCmd("config", "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"REWRITE", "    Rewrite the configuration file."),
)
