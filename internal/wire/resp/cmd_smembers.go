package resp

var cmdSMembers = def(cmdSpec{
	Name: "smembers", Arity: 2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set slow", Group: "set", Since: "1.0.0",
	Summary:    "Returns all members of a set.",
	Complexity: "O(N) where N is the set cardinality.",
	Handler: func(x *cmdCtx) error {
		ms, err := x.tx.SMembers(x.args[1])
		if err != nil {
			return err
		}
		writeSetOf(x.w, ms)
		return nil
	},
})
