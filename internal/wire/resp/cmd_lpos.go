package resp

const maxLong = 1<<63 - 1

var cmdLPos = def(cmdSpec{
	Name: "lpos", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read list slow", Group: "list", Since: "6.0.6",
	Summary:    "Returns the index of matching elements in a list.",
	Complexity: "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
	Handler: func(x *cmdCtx) error {
		rank, count, maxlen := int64(1), int64(-1), int64(0)
		for i := 3; i < len(x.args); i++ {
			more := i+1 < len(x.args)
			var err error
			switch {
			case argEq(x.args[i], "rank") && more:
				i++
				if rank, err = parseRangeLong(x.args[i], -maxLong, maxLong, ""); err != nil {
					return err
				}
				if rank == 0 {
					return replyErr("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				}
			case argEq(x.args[i], "count") && more:
				i++
				if count, err = parsePositive(x.args[i], "COUNT can't be negative"); err != nil {
					return err
				}
			case argEq(x.args[i], "maxlen") && more:
				i++
				if maxlen, err = parsePositive(x.args[i], "MAXLEN can't be negative"); err != nil {
					return err
				}
			default:
				return errSyntax
			}
		}
		want := count
		if count == -1 {
			want = 1
		}
		idx, err := x.tx.LPos(x.args[1], x.args[2], rank, want, maxlen)
		if err != nil {
			return err
		}
		if count != -1 {
			writeInts(x.w, idx)
			return nil
		}
		if len(idx) == 0 {
			x.w.Null()
			return nil
		}
		x.w.Int(idx[0])
		return nil
	},
})
