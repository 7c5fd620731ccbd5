package resp

var cmdZRandMember = def("zrandmember", -2, "readonly", 1, 1, 1, "read sortedset slow", "sorted-set", "6.2.0",
	"Returns one or more random members from a sorted set.",
	"O(N) where N is the number of members returned", func(x *cmdCtx) error {
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
			return randCountErr(err)
		}
		writeZMembers(x.w, els, withScores)
		return nil
	})
