package resp

var cmdHStrLen = def(cmdSpec{
	Name: "hstrlen", Arity: 3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "3.2.0",
	Summary:    "Returns the length of the value of a field.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.HStrLen(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
