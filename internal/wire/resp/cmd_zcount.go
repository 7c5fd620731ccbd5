package resp

var cmdZCount = def("zcount", 4, "readonly fast", 1, 1, 1, "read sortedset fast", "sorted-set", "2.0.0",
	"Returns the count of members in a sorted set that have scores within a range.",
	"O(log(N)) with N being the number of elements in the sorted set.", func(x *cmdCtx) error {
		min, max, err := parseScoreRange(x.args[2], x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.ZCount(x.args[1], min, max)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
