package resp

var cmdMSetEx = def(cmdSpec{
	Name: "msetex", Arity: -4, Flags: "write denyoom", FirstKey: 2, LastKey: -1, Step: 2,
	ACL: "write string slow", Group: "string", Since: "8.4.0",
	Summary:    "Atomically sets multiple string keys with a shared expiration in a single operation. Supports flexible argument parsing where condition and expiration flags can appear in any order.",
	Complexity: "O(N) where N is the number of keys to set.",
	Handler: func(x *cmdCtx) error {
		n, err := parseInt(x.args[1])
		if err != nil {
			return err
		}
		if n <= 0 || n > int64(len(x.args)) {
			return replyErr("ERR invalid numkeys value")
		}
		end := 2 + 2*int(n)
		if end > len(x.args) {
			return errArity(x.cmd.name)
		}
		o, err := parseSetOptions(x, x.args[end:], false)
		if err != nil {
			return err
		}
		done, err := x.tx.MSet(x.args[2:end], o.Cond, o.ExpireAt, o.KeepTTL)
		if err != nil {
			return err
		}
		x.w.Bool2(done)
		return nil
	},
})
