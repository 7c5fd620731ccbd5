package resp

var cmdScript = container("script", "", "slow", "scripting", "2.6.0", "A container for Lua scripts management commands.",
	def(cmdSpec{
		Name: "script|load", Arity: 3, Flags: "noscript stale",
		ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
		Summary:    "Loads a server-side Lua script to the script cache.",
		Complexity: "O(N) with N being the length in bytes of the script body.",
		Handler: func(x *cmdCtx) error {
			sha, err := x.s.scripts.Load(x.args[2])
			if err != nil {
				return replyErr(err.Error())
			}
			x.w.BulkString(sha)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "script|exists", Arity: -3, Flags: "noscript",
		ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
		Summary:    "Determines whether server-side Lua scripts exist in the script cache.",
		Complexity: "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
		Handler: func(x *cmdCtx) error {
			x.w.Array(len(x.args) - 2)
			for _, sha := range x.args[2:] {
				if x.s.scripts.Exists(string(sha)) {
					x.w.Int(1)
				} else {
					x.w.Int(0)
				}
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "script|flush", Arity: -2, Flags: "noscript",
		ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
		Summary:    "Removes all server-side Lua scripts from the script cache.",
		Complexity: "O(N) with N being the number of scripts in cache",
		Handler: func(x *cmdCtx) error {
			if len(x.args) > 3 || (len(x.args) == 3 && !argEq(x.args[2], "async") && !argEq(x.args[2], "sync")) {
				return replyErr("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			}
			x.s.scripts.Flush()
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "script|kill", Arity: 2, Flags: "noscript allow_busy",
		ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
		Summary:    "Terminates a server-side Lua script during execution.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if err := x.s.killScript(false); err != nil {
				return err
			}
			x.w.OK()
			return nil
		},
	}),
	helpCmd("script", "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it."),
)
