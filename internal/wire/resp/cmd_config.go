package resp

var cmdConfig = container("config", "", "slow", "server", "2.0.0", "A container for server configuration commands.",
	def("config|get", -3, "admin noscript loading stale", 0, 0, 0, "admin slow dangerous", "server", "2.0.0",
		"Returns the effective values of configuration parameters.", "O(N) when N is the number of configuration parameters provided",
		func(x *cmdCtx) error {
			pairs := x.s.cfg.getAll(x.args[2:])
			x.w.Map(len(pairs))
			for _, kv := range pairs {
				x.w.BulkString(kv[0])
				x.w.BulkString(kv[1])
			}
			return nil
		}),
	def("config|set", -4, "admin noscript loading stale", 0, 0, 0, "admin slow dangerous", "server", "2.0.0",
		"Sets configuration parameters in-flight.", "O(N) when N is the number of configuration parameters provided",
		func(x *cmdCtx) error {
			if len(x.args)%2 != 0 {
				return errSyntax
			}
			if err := x.s.cfg.setMany(x.args[2:]); err != nil {
				return err
			}
			x.w.OK()
			return nil
		}),
	def("config|resetstat", 2, "admin noscript loading stale", 0, 0, 0, "admin slow dangerous", "server", "2.0.0",
		"Resets the server's statistics.", "O(1)", func(x *cmdCtx) error {
			x.s.resetStats()
			x.w.OK()
			return nil
		}),
	def("config|rewrite", 2, "admin noscript loading stale", 0, 0, 0, "admin slow dangerous", "server", "2.8.0",
		"Persists the effective configuration to file.", "O(1)", func(x *cmdCtx) error {
			return replyErr("ERR The server is running without a config file")
		}),
	helpCmd("config", "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"REWRITE", "    Rewrite the configuration file."),
)
