package resp

var cmdSInterCard = def(cmdSpec{
	Name: "sintercard", Arity: -3, Flags: "readonly movablekeys",
	ACL: "read set slow", Group: "set", Since: "7.0.0",
	Summary:    "Returns the number of members of the intersect of multiple sets.",
	Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
	Handler: func(x *cmdCtx) error {
		numkeys, err := parseRangeLong(x.args[1], 1, maxLong, "numkeys should be greater than 0")
		if err != nil {
			return err
		}
		if numkeys > int64(len(x.args)-2) {
			return replyErr("ERR Number of keys can't be greater than number of args")
		}
		var limit int64
		for i := 2 + int(numkeys); i < len(x.args); i++ {
			if argEq(x.args[i], "limit") && i+1 < len(x.args) {
				i++
				if limit, err = parsePositive(x.args[i], "LIMIT can't be negative"); err != nil {
					return err
				}
				continue
			}
			return errSyntax
		}
		n, err := x.tx.SInterCard(x.args[2:2+numkeys], limit)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
