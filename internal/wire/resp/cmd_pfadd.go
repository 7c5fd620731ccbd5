package resp

var cmdPFAdd = def(cmdSpec{
	Name: "pfadd", Arity: -2, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hyperloglog fast", Group: "hyperloglog", Since: "2.8.9",
	Summary:    "Adds the specified elements to the specified HyperLogLog.",
	Complexity: "O(1) to add every element.",
	Handler: func(x *cmdCtx) error {
		changed, err := x.tx.PFAdd(x.args[1], x.args[2:], hllSparseMax(x))
		if err != nil {
			return err
		}
		if changed {
			x.w.Int(1)
		} else {
			x.w.Int(0)
		}
		return nil
	},
})
