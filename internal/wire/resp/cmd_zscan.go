package resp

var cmdZScan = def(cmdSpec{
	Name: "zscan", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset slow", Group: "sorted-set", Since: "2.8.0",
	Summary:    "Iterates over members and scores of a sorted set.",
	Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
	Handler: func(x *cmdCtx) error {
		cursor, o, err := parseCollScan(x.args, false)
		if err != nil {
			return err
		}
		next, els, err := x.tx.ZScan(x.args[1], cursor, o)
		if err != nil {
			return err
		}
		writeScanReply(x.w, next, 2*len(els))
		for _, e := range els {
			x.w.Bulk(e.Member)
			x.w.BulkString(formatScore(e.Score))
		}
		return nil
	},
})
