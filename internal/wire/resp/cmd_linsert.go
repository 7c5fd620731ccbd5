package resp

var cmdLInsert = def(cmdSpec{
	Name: "linsert", Arity: 5, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list slow", Group: "list", Since: "2.2.0",
	Summary:    "Inserts an element before or after another element in a list.",
	Complexity: "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
	Handler: func(x *cmdCtx) error {
		var before bool
		switch {
		case argEq(x.args[2], "before"):
			before = true
		case argEq(x.args[2], "after"):
		default:
			return errSyntax
		}
		n, err := x.tx.LInsert(x.args[1], before, x.args[3], x.args[4])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
