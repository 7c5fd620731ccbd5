package resp

var cmdZRem = def(cmdSpec{
	Name: "zrem", Arity: -3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset fast", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
	Complexity: "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.ZRem(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
