package resp

var cmdLRange = def(cmdSpec{
	Name: "lrange", Arity: 4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read list slow", Group: "list", Since: "1.0.0",
	Summary:    "Returns a range of elements from a list.",
	Complexity: "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
	Handler: func(x *cmdCtx) error {
		start, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		stop, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		vals, err := x.tx.LRange(x.args[1], start, stop)
		if err != nil {
			return err
		}
		writeBulks(x.w, vals)
		return nil
	},
})
