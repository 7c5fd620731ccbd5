package resp

import "strings"

var cmdPFDebug = def(cmdSpec{
	Name: "pfdebug", Arity: 3, Flags: "write denyoom admin", FirstKey: 2, LastKey: 2, Step: 1,
	ACL: "write hyperloglog admin slow dangerous", Group: "hyperloglog", Since: "2.8.9",
	Summary:    "Internal commands for debugging HyperLogLog values",
	Complexity: "N/A",
	Handler: func(x *cmdCtx) error {
		sub := string(x.args[1])
		r, found, err := x.tx.PFDebug(strings.ToLower(sub), x.args[2])
		switch {
		case err != nil:
			return err
		case !found:
			return replyErr("ERR The specified key does not exist")
		case r.Unknown:
			return replyErr("ERR Unknown PFDEBUG subcommand '" + sub + "'")
		case r.NotSparse:
			return replyErr("ERR HLL encoding is not sparse")
		}
		switch strings.ToLower(sub) {
		case "getreg":
			x.w.Array(len(r.Registers))
			for _, v := range r.Registers {
				x.w.Int(int64(v))
			}
		case "decode":
			x.w.BulkString(r.Decoded)
		case "encoding":
			x.w.Simple(r.Encoding)
		case "todense":
			if r.Converted {
				x.w.Int(1)
			} else {
				x.w.Int(0)
			}
		}
		return nil
	},
})
