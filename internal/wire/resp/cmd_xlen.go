package resp

var cmdXLen = def(cmdSpec{
	Name: "xlen", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read stream fast", Group: "stream", Since: "5.0.0",
	Summary:    "Return the number of entries in a stream",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.XLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
