// Package script runs Redis's Lua scripts (EVAL, EVALSHA, SCRIPT LOAD) and
// functions (FUNCTION LOAD, FCALL) on a Lua 5.1 interpreter, with Redis
// 7.0's libraries, sandbox, conversions and error words. It knows nothing of storage or the protocol: commands a
// script calls go to a Host, and replies travel as Reply values.
//
// # Rules
//
// Scripts are compiled once under the chunk name user_script and cached
// by the SHA1 of their body (EVAL caches too, so EVALSHA finds a script
// EVAL ran), up to MaxCached scripts, the oldest forgotten first; Flush
// empties the cache.
//
// The sandbox is Redis's: the base library without dofile, loadfile,
// print, module or require, and the table, string, math, coroutine,
// redis, cjson, cmsgpack, bit and struct libraries; no os, io, package or
// debug. The
// globals and every library are read-only views: assigning a global or a
// library field (also through rawset) fails with "Attempt to modify a
// readonly table", and reading an undefined global fails with "Script
// attempted to access nonexistent global variable 'NAME'". KEYS and ARGV
// are the running script's.
//
// A script's value becomes the reply as Redis converts it (toReply), and a
// command's reply the value redis.call returns (toLua), in RESP2 or, after
// redis.setresp(3), RESP3. redis.call raises a command's error reply, and
// a refusal of the Host, as the error object {err=...}; redis.pcall
// returns it, and Lua's pcall catches such an object (also one raised by
// error({err=...})) as the value of its err field. A script that fails answers the error's message followed by
// " script: SHA, on @user_script:LINE." when the line is known, a Lua
// runtime error being prefixed by ERR as Redis does.
//
// redis.acl_check_cmd(cmd, args...) asks the Host (CheckACL) whether the
// script's user may run the command and returns the boolean; a command
// the Host does not know raises "Invalid command passed to
// redis.acl_check_cmd()".
//
// A script's shebang "#!lua flags=..." gives its Flags (Engine.Flags),
// which the caller checks before running it; a script without one is
// FlagEvalCompat.
//
// Functions: a library (LoadLibrary) is code whose first line is
// "#!lua name=NAME"; its body is compiled under the chunk name
// user_function and run once, with only a redis table of
// register_function, log and the version and log-level fields as globals
// (anything else fails as an undefined global does), for at most
// LoadTimeout; what it registers are the library's functions. Every
// library is loaded and every function called (Call) in one Lua state
// kept for the purpose, so a library's locals are shared by its functions
// and last between calls. A function gets KEYS and ARGV as its two
// arguments, not as globals, and sees the scripts' globals but
// register_function. Library names are case-sensitive, function names are
// not, and no two libraries register the same function. DumpLibraries
// and RestoreLibraries use Redis's FUNCTION DUMP payload (RDB function
// records, LZF-compressed or not, then the RDB version and a CRC64).
//
// A Host's panic (a command that panicked) unwinds the script and is
// raised again from Eval, so that the caller rolls back as for any
// command that panics.
//
// Tables are walked (map and set replies, cjson and cmsgpack encodings)
// in the order pairs() visits them: the array part, then the other keys
// in insertion order.
//
// Departures from Redis: parse errors are gopher-lua's ("unexpected
// symbol" for any syntax error), some runtime error texts differ from
// Lua 5.1's, pairs over a library or _G sees nothing (they are views),
// math.random draws from Go's generator (seeded at random and lasting from
// one script to the next, as Redis 7.0's does; the same math.randomseed
// gives the same numbers, not Redis's numbers), a number joined with ..
// takes the interpreter's shortest exact form (0.30000000000000004) where
// Redis's Lua, tostring and string.format's %s write C's %.14g (0.3),
// calling a nil method fails as calling a nil field does ("attempt to call
// field 'm' (a nil value)"), getmetatable(nil) is false, and string.dump
// gives only a binary chunk's header, which loadstring refuses. cjson's
// options (encode_max_depth, ...) last for the script that sets them,
// where Redis keeps them until it restarts.
//
// # Testing
//
// The protocol package's tests run every rule through go-redis against an
// in-process server.
package script
