package resp

var cmdLRem = def(cmdSpec{
	Name: "lrem", Arity: 4, Flags: "write", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list slow", Group: "list", Since: "1.0.0",
	Summary:    "Removes elements from a list. Deletes the list if the last element was removed.",
	Complexity: "O(N+M) where N is the length of the list and M is the number of elements removed.",
	Handler: func(x *cmdCtx) error {
		count, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		n, err := x.tx.LRem(x.args[1], count, x.args[3])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
