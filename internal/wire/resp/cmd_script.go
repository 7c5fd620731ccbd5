package resp

var cmdScript = container("script", "", "slow", "scripting", "2.6.0", "A container for Lua scripts management commands.",
	def(cmdSpec{
		Name: "script|flush", Arity: -2, Flags: "noscript",
		ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
		Summary:    "Removes all server-side Lua scripts from the script cache.",
		Complexity: "O(N) with N being the number of scripts in cache",
		Handler: func(x *cmdCtx) error {
			if len(x.args) > 3 || (len(x.args) == 3 && !argEq(x.args[2], "async") && !argEq(x.args[2], "sync")) {
				return replyErr("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			}
			// No scripts can be loaded, so the cache is always empty.
			x.w.OK()
			return nil
		},
	}),
	helpCmd("script", "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache."),
)
