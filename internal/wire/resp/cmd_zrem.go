package resp

var cmdZRem = def("zrem", -3, "write fast", 1, 1, 1, "write sortedset fast", "sorted-set", "1.2.0",
	"Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
	"O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
	func(x *cmdCtx) error {
		n, err := x.tx.ZRem(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
