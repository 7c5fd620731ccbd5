package resp

var cmdScript = container("script", "", "slow", "scripting", "2.6.0", "A container for Lua scripts management commands.",
	def("script|flush", -2, "noscript", 0, 0, 0, "slow scripting", "scripting", "2.6.0",
		"Removes all server-side Lua scripts from the script cache.", "O(N) with N being the number of scripts in cache",
		func(x *cmdCtx) error {
			if len(x.args) > 3 || (len(x.args) == 3 && !argEq(x.args[2], "async") && !argEq(x.args[2], "sync")) {
				return replyErr("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			}
			// No scripts can be loaded, so the cache is always empty.
			x.w.OK()
			return nil
		}),
	helpCmd("script", "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache."),
)
