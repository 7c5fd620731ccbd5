package resp

var cmdHScan = def(cmdSpec{
	Name: "hscan", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash slow", Group: "hash", Since: "2.8.0",
	Summary:    "Iterates over fields and values of a hash.",
	Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
	Handler: func(x *cmdCtx) error {
		cursor, o, err := parseCollScan(x.args, true)
		if err != nil {
			return err
		}
		next, pairs, err := x.tx.HScan(x.args[1], cursor, o)
		if err != nil {
			return err
		}
		n := 2 * len(pairs)
		if o.NoValues {
			n = len(pairs)
		}
		writeScanReply(x.w, next, n)
		for _, p := range pairs {
			x.w.Bulk(p.Field)
			if !o.NoValues {
				x.w.Bulk(p.Value)
			}
		}
		return nil
	},
})
