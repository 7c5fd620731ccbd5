package resp

import (
	"strconv"
	"time"
)

var cmdDebug = def(cmdSpec{
	Name: "debug", Arity: -2, Flags: "admin noscript loading stale",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "A container for debugging commands.",
	Complexity: "Depends on subcommand.",
	Handler: func(x *cmdCtx) error {
		switch {
		case argEq(x.args[1], "sleep") && len(x.args) == 3:
			secs, err := strconv.ParseFloat(string(x.args[2]), 64)
			if err != nil || secs < 0 {
				return errNotFloat
			}
			// Like Redis, the whole server waits: the kv lock is held.
			time.Sleep(time.Duration(secs * float64(time.Second)))
			x.w.OK()
		case argEq(x.args[1], "set-disable-deny-scripts") && len(x.args) == 3:
			// Scripts may call commands flagged noscript while it is set.
			// The value is read as C's atoi: the leading digits, anything
			// else being 0.
			x.s.runs.denyDisabled.Store(leadingInt(x.args[2]) != 0)
			x.w.OK()
		case argEq(x.args[1], "set-active-expire") && len(x.args) == 3:
			n, err := parseInt(x.args[2])
			if err != nil {
				return err
			}
			if x.s.opts.SetActiveExpire != nil {
				x.s.opts.SetActiveExpire(n != 0)
			}
			x.w.OK()
		case argEq(x.args[1], "object") && len(x.args) == 3:
			enc, ok, err := objectEncoding(x, x.args[2])
			if err != nil {
				return err
			}
			if !ok {
				return replyErr("ERR no such key")
			}
			x.w.Simple("Value at:0x0 refcount:1 encoding:" + enc + " serializedlength:0 lru:0 lru_seconds_idle:0")
		case argEq(x.args[1], "protocol") && len(x.args) == 3:
			return debugProtocol(x, x.args[2])
		case argEq(x.args[1], "reload"):
			// The data already lives in the storage engine, so saving it and
			// loading it back leaves the same dataset: only the options are
			// checked.
			for _, opt := range x.args[2:] {
				if !argEq(opt, "merge") && !argEq(opt, "noflush") && !argEq(opt, "nosave") {
					return replyErr("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
				}
			}
			x.w.OK()
		case argEq(x.args[1], "loadaof"):
			// As RELOAD: what was written is what is served.
			x.w.OK()
		case argEq(x.args[1], "quicklist-packed-threshold") && len(x.args) == 3:
			// Redis's size above which a list element gets a node of its
			// own; mayfly stores each element as its own record, so the
			// value is only validated.
			n, ok := parseMemoryValue(string(x.args[2]))
			if !ok || n > 1<<32-1<<20 {
				return replyErr("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
			}
			x.w.OK()
		case argEq(x.args[1], "help"):
			lines := []string{"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
				"LOADAOF", "    Flush the AOF buffers on disk and reload the AOF in memory.",
				"OBJECT <key>", "    Show low level info about the `key` and associated value.",
				"PROTOCOL <type>", "    Reply with a test value of the specified type. <type> can be: string,",
				"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
				"    true, false.",
				"QUICKLIST-PACKED-THRESHOLD <size>", "    Sets the threshold for elements to be inserted as plain vs packed nodes",
				"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
				"RELOAD [option ...]", "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
				"    * MERGE: conflicting keys will be loaded from RDB.",
				"    * NOFLUSH: the existing database will not be removed before load, but",
				"      conflicting keys will generate an exception and kill the server.",
				"    * NOSAVE: the database will be loaded from an existing RDB file.",
				"    Examples:",
				"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
				"      the database.",
				"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
				"      existing RDB file.",
				"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
				"      file to the database.",
				"SET-ACTIVE-EXPIRE <0|1>", "    Setting it to 0 disables expiring keys in background when they are not", "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the", "    default.",
				"SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.",
				"HELP", "    Print this help."}
			x.w.Array(len(lines))
			for _, l := range lines {
				x.w.Simple(l)
			}
		default:
			return replyErr("ERR unknown subcommand '" + string(x.args[1]) + "'. Try DEBUG HELP.")
		}
		return nil
	},
})

// debugProtocol answers DEBUG PROTOCOL: one sample reply of each RESP
// type, as Redis gives them (RESP3 types degrade in RESP2; an attribute
// is only sent in RESP3, a push refused in RESP2).
func debugProtocol(x *cmdCtx, name []byte) error {
	w := x.w
	switch {
	case argEq(name, "string"):
		w.BulkString("Hello World")
	case argEq(name, "integer"):
		w.Int(12345)
	case argEq(name, "double"):
		w.Double(3.141)
	case argEq(name, "bignum"):
		const big = "1234567999999999999999999999999999999"
		if w.Proto() >= 3 {
			w.Raw([]byte("(" + big + "\r\n"))
		} else {
			w.BulkString(big)
		}
	case argEq(name, "null"):
		w.Null()
	case argEq(name, "array"), argEq(name, "set"):
		if argEq(name, "set") {
			w.Set(3)
		} else {
			w.Array(3)
		}
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case argEq(name, "map"):
		w.Map(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
			w.Bool(j == 1)
		}
	case argEq(name, "attrib"):
		if w.Proto() >= 3 {
			w.Raw([]byte("|1\r\n"))
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case argEq(name, "push"):
		if w.Proto() < 3 {
			return replyErr("ERR RESP2 is not supported by this command")
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case argEq(name, "true"):
		w.Bool(true)
	case argEq(name, "false"):
		w.Bool(false)
	case argEq(name, "verbatim"):
		w.Verbatim("This is a verbatim\nstring")
	default:
		return replyErr("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
	return nil
}

// leadingInt reads b as C's atoi does: optional spaces and sign, then the
// leading digits; no digits give 0.
func leadingInt(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == '\v' || b[i] == '\f') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
		if n > 1<<40 {
			break // far past any flag value; only zero or not matters
		}
	}
	if neg {
		return -n
	}
	return n
}
