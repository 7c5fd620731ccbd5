package resp

var cmdSPop = def(cmdSpec{
	Name: "spop", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write set fast", Group: "set", Since: "1.0.0",
	Summary:    "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.",
	Complexity: "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
	Handler: func(x *cmdCtx) error {
		switch len(x.args) {
		case 2:
			ms, ok, err := x.tx.SPop(x.args[1], -1)
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Bulk(ms[0])
			return nil
		case 3:
			n, err := parsePositive(x.args[2], "")
			if err != nil {
				return err
			}
			ms, _, err := x.tx.SPop(x.args[1], n)
			if err != nil {
				return err
			}
			writeSetOf(x.w, ms)
			return nil
		}
		return errSyntax
	},
})
