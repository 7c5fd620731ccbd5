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
			enc, ok, err := x.tx.Encoding(x.args[2])
			if err != nil {
				return err
			}
			if !ok {
				return replyErr("ERR no such key")
			}
			x.w.Simple("Value at:0x0 refcount:1 encoding:" + enc + " serializedlength:0 lru:0 lru_seconds_idle:0")
		case argEq(x.args[1], "help"):
			lines := []string{"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
				"OBJECT <key>", "    Show low level info about the `key` and associated value.",
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
