package resp

var cmdSMove = def(cmdSpec{
	Name: "smove", Arity: 4, Flags: "write fast", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write set fast", Group: "set", Since: "1.0.0",
	Summary:    "Moves a member from one set to another.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		ok, err := x.tx.SMove(x.args[1], x.args[2], x.args[3])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	},
})
