package resp

var cmdZCount = def(cmdSpec{
	Name: "zcount", Arity: 4, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "2.0.0",
	Summary:    "Returns the count of members in a sorted set that have scores within a range.",
	Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
	Handler: func(x *cmdCtx) error {
		min, max, err := parseScoreRange(x.args[2], x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.ZCount(x.args[1], min, max)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
