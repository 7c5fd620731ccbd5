package resp

var cmdLTrim = def(cmdSpec{
	Name: "ltrim", Arity: 4, Flags: "write", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list slow", Group: "list", Since: "1.0.0",
	Summary:    "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
	Complexity: "O(N) where N is the number of elements to be removed by the operation.",
	Handler: func(x *cmdCtx) error {
		start, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		stop, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		if err := x.tx.LTrim(x.args[1], start, stop); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
