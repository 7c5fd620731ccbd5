package resp

var cmdHRandField = def(cmdSpec{
	Name: "hrandfield", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash slow", Group: "hash", Since: "6.2.0",
	Summary:    "Returns one or more random fields from a hash.",
	Complexity: "O(N) where N is the number of fields returned",
	Handler: func(x *cmdCtx) error {
		if len(x.args) == 2 {
			pairs, ok, err := x.tx.HRandField(x.args[1], 1)
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Bulk(pairs[0].Field)
			return nil
		}
		n, err := parseRangeLong(x.args[2], -maxLong, maxLong, "")
		if err != nil {
			return err
		}
		withValues := false
		switch {
		case len(x.args) > 4 || (len(x.args) == 4 && !argEq(x.args[3], "withvalues")):
			return errSyntax
		case len(x.args) == 4:
			withValues = true
			if n < -maxLong/2 || n > maxLong/2 {
				return replyErr("ERR value is out of range")
			}
		}
		pairs, _, err := x.tx.HRandField(x.args[1], n)
		if err != nil {
			return err
		}
		if n == 0 {
			pairs = nil
		}
		switch {
		case !withValues:
			x.w.Array(len(pairs))
		case x.w.Proto() >= 3:
			x.w.Array(len(pairs))
		default:
			x.w.Array(2 * len(pairs))
		}
		for _, p := range pairs {
			if withValues && x.w.Proto() >= 3 {
				x.w.Array(2)
			}
			x.w.Bulk(p.Field)
			if withValues {
				x.w.Bulk(p.Value)
			}
		}
		return nil
	},
})
