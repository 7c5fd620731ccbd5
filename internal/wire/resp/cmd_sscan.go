package resp

var cmdSScan = def(cmdSpec{
	Name: "sscan", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set slow", Group: "set", Since: "2.8.0",
	Summary:    "Iterates over members of a set.",
	Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
	Handler: func(x *cmdCtx) error {
		cursor, o, err := parseCollScan(x.args, false)
		if err != nil {
			return err
		}
		next, ms, err := x.tx.SScan(x.args[1], cursor, o)
		if err != nil {
			return err
		}
		writeScanReply(x.w, next, len(ms))
		for _, m := range ms {
			x.w.Bulk(m)
		}
		return nil
	},
})
