package resp

var cmdZRandMember = def(cmdSpec{
	Name: "zrandmember", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset slow", Group: "sorted-set", Since: "6.2.0",
	Summary:    "Returns one or more random members from a sorted set.",
	Complexity: "O(N) where N is the number of members returned",
	Handler: func(x *cmdCtx) error {
		if len(x.args) == 2 {
			els, ok, err := x.tx.ZRandMember(x.args[1], -1)
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Bulk(els[0].Member)
			return nil
		}
		n, err := parseRangeLong(x.args[2], -maxLong, maxLong, "")
		if err != nil {
			return err
		}
		withScores := false
		switch {
		case len(x.args) > 4 || (len(x.args) == 4 && !argEq(x.args[3], "withscores")):
			return errSyntax
		case len(x.args) == 4:
			withScores = true
			if n < -maxLong/2 || n > maxLong/2 {
				return replyErr("ERR value is out of range")
			}
		}
		els, _, err := x.tx.ZRandMember(x.args[1], n)
		if err != nil {
			return err
		}
		writeZMembers(x.w, els, withScores)
		return nil
	},
})
