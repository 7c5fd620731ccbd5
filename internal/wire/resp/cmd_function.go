package resp

import (
	"github.com/mayfly/mayfly/internal/script"
)

var cmdFunction = container("function", "", "slow", "scripting", "7.0.0", "A container for function commands.",
	def(cmdSpec{
		Name: "function|load", Arity: -3, Flags: "write denyoom noscript",
		ACL: "write slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Creates a library.",
		Complexity: "O(1) (considering compilation time is redundant)",
		Handler:    functionLoad,
	}),
	def(cmdSpec{
		Name: "function|delete", Arity: 3, Flags: "write noscript",
		ACL: "write slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Deletes a library and its functions.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if err := x.s.scripts.DeleteLibrary(string(x.args[2])); err != nil {
				return replyErr(err.Error())
			}
			return saveFunctions(x)
		},
	}),
	def(cmdSpec{
		Name: "function|flush", Arity: -2, Flags: "write noscript",
		ACL: "write slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Deletes all libraries and functions.",
		Complexity: "O(N) where N is the number of functions deleted",
		Handler: func(x *cmdCtx) error {
			if len(x.args) > 3 {
				return subcommandSyntaxError(x)
			}
			if len(x.args) == 3 && !argEq(x.args[2], "async") && !argEq(x.args[2], "sync") {
				return replyErr("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			}
			x.s.scripts.FlushLibraries()
			return saveFunctions(x)
		},
	}),
	def(cmdSpec{
		Name: "function|list", Arity: -2, Flags: "noscript",
		ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Returns information about all libraries.",
		Complexity: "O(N) where N is the number of functions",
		Handler:    functionList,
	}),
	def(cmdSpec{
		Name: "function|dump", Arity: 2, Flags: "noscript",
		ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Dumps all libraries into a serialized binary payload.",
		Complexity: "O(N) where N is the number of functions",
		Handler: func(x *cmdCtx) error {
			x.w.Bulk(x.s.scripts.DumpLibraries())
			return nil
		},
	}),
	def(cmdSpec{
		Name: "function|restore", Arity: -3, Flags: "write denyoom noscript",
		ACL: "write slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Restores all libraries from a payload.",
		Complexity: "O(N) where N is the number of functions on the payload",
		Handler:    functionRestore,
	}),
	def(cmdSpec{
		Name: "function|stats", Arity: 2, Flags: "noscript allow_busy",
		ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Returns information about a function during execution.",
		Complexity: "O(1)",
		Handler:    functionStats,
	}),
	def(cmdSpec{
		Name: "function|kill", Arity: 2, Flags: "noscript allow_busy",
		ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
		Summary:    "Terminates a function during execution.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if err := x.s.killScript(true); err != nil {
				return err
			}
			x.w.OK()
			return nil
		},
	}),
	helpCmd("function", "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library)."),
)

// subcommandSyntaxError is Redis's reply to a subcommand given arguments
// it does not take.
func subcommandSyntaxError(x *cmdCtx) error {
	return replyErr("ERR unknown subcommand or wrong number of arguments for '" + string(x.args[1]) + "'. Try FUNCTION HELP.")
}

// saveFunctions stores the libraries with the command's writes, so that
// they survive a restart (and FLUSHALL, which deletes keys only), and
// answers OK.
func saveFunctions(x *cmdCtx) error {
	var payload []byte
	if n, _ := x.s.scripts.FunctionCounts(); n > 0 {
		payload = x.s.scripts.DumpLibraries()
	}
	if err := x.tx.SetFunctions(payload); err != nil {
		return err
	}
	x.w.OK()
	return nil
}

// functionLoad is FUNCTION LOAD [REPLACE] code.
func functionLoad(x *cmdCtx) error {
	replace := false
	i := 2
	for ; i < len(x.args)-1; i++ {
		if !argEq(x.args[i], "replace") {
			return replyErr("ERR Unknown option given: " + string(x.args[i]))
		}
		replace = true
	}
	if i >= len(x.args) {
		return replyErr("ERR Function code is missing")
	}
	name, err := x.s.scripts.LoadLibrary(x.args[i], replace)
	if err != nil {
		return replyErr(err.Error())
	}
	if err := x.tx.SetFunctions(x.s.scripts.DumpLibraries()); err != nil {
		return err
	}
	x.w.BulkString(name)
	return nil
}

// functionList is FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE].
func functionList(x *cmdCtx) error {
	withCode := false
	var pattern []byte
	havePattern := false
	for i := 2; i < len(x.args); i++ {
		a := x.args[i]
		switch {
		case !withCode && argEq(a, "withcode"):
			withCode = true
		case !havePattern && argEq(a, "libraryname"):
			if i >= len(x.args)-1 {
				return replyErr("ERR library name argument was not given")
			}
			i++
			pattern, havePattern = x.args[i], true
		default:
			return replyErr("ERR Unknown argument " + string(a))
		}
	}
	var libs []script.Library
	for _, l := range x.s.scripts.Libraries() {
		if !havePattern || globMatch(string(pattern), l.Name) {
			libs = append(libs, l)
		}
	}
	w := x.w
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString(l.Engine)
		w.BulkString("functions")
		w.Array(len(l.Functions))
		for _, f := range l.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDescription {
				w.BulkString(f.Description)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.Set(len(names))
			for _, n := range names {
				w.Simple(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.Bulk(l.Code)
		}
	}
	return nil
}

// functionRestore is FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE].
func functionRestore(x *cmdCtx) error {
	if len(x.args) > 4 {
		return subcommandSyntaxError(x)
	}
	policy := script.RestoreAppend
	if len(x.args) == 4 {
		switch p := x.args[3]; {
		case argEq(p, "append"):
		case argEq(p, "replace"):
			policy = script.RestoreReplace
		case argEq(p, "flush"):
			policy = script.RestoreFlush
		default:
			return replyErr("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
		}
	}
	if err := x.s.scripts.RestoreLibraries(x.args[2], policy); err != nil {
		return replyErr(err.Error())
	}
	return saveFunctions(x)
}

// functionStats is FUNCTION STATS: the running function, if any, and the
// libraries and functions of the one engine, LUA. While an EVAL script is
// busy it gets the BUSY reply, as in Redis.
func functionStats(x *cmdCtx) error {
	r := x.s.runningNow()
	if r != nil && !r.function {
		return errBusy
	}
	w := x.w
	w.Map(2)
	w.BulkString("running_script")
	if r == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(r.name)
		w.BulkString("command")
		w.Array(len(r.command))
		for _, a := range r.command {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(x.s.opts.Now().Sub(r.start).Milliseconds())
	}
	libs, fns := x.s.scripts.FunctionCounts()
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(fns))
	return nil
}
