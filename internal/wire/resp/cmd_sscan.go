package resp

var cmdSScan = def("sscan", -3, "readonly", 1, 1, 1, "read set slow", "set", "2.8.0",
	"Iterates over members of a set.",
	"O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
	func(x *cmdCtx) error {
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
	})
