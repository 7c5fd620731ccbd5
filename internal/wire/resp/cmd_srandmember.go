package resp

var cmdSRandMember = def(cmdSpec{
	Name: "srandmember", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set slow", Group: "set", Since: "1.0.0",
	Summary:    "Get one or multiple random members from a set",
	Complexity: "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
	Handler: func(x *cmdCtx) error {
		switch len(x.args) {
		case 2:
			ms, ok, err := x.tx.SRandMember(x.args[1], 1)
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
			n, err := parseRangeLong(x.args[2], -maxLong, maxLong, "")
			if err != nil {
				return err
			}
			ms, _, err := x.tx.SRandMember(x.args[1], n)
			if err != nil {
				return err
			}
			writeBulks(x.w, ms)
			return nil
		}
		return errSyntax
	},
})
