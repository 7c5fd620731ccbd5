package resp

var cmdPFMerge = def(cmdSpec{
	Name: "pfmerge", Arity: -2, Flags: "write denyoom", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "write hyperloglog slow", Group: "hyperloglog", Since: "2.8.9",
	Summary:    "Merge N different HyperLogLogs into a single one.",
	Complexity: "O(N) to merge N HyperLogLogs, but with high constant times.",
	Handler: func(x *cmdCtx) error {
		if err := x.tx.PFMerge(x.args[1], x.args[2:], hllSparseMax(x)); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
