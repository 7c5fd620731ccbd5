package resp

var cmdFunction = container("function", "", "slow", "scripting", "7.0.0", "A container for function commands.",
	def(cmdSpec{
		Name: "function|flush", Arity: -2, Flags: "write noscript",
		ACL: "write slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Deletes all libraries and functions.",
		Complexity: "O(N) where N is the number of functions deleted",
		Handler: func(x *cmdCtx) error {
			if len(x.args) > 3 || (len(x.args) == 3 && !argEq(x.args[2], "async") && !argEq(x.args[2], "sync")) {
				return replyErr("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			}
			// No functions can be loaded, so there is never anything to delete.
			x.w.OK()
			return nil
		},
	}),
	helpCmd("function", "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"FLUSH [ASYNC|SYNC]", "    Delete all the libraries."),
)
