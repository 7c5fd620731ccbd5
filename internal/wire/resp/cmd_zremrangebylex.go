package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRemRangeByLex = def("zremrangebylex", 4, "write", 1, 1, 1, "write sortedset slow", "sorted-set", "2.8.9",
	"Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.",
	"O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
	func(x *cmdCtx) error {
		min, max, err := parseLexRange(x.args[2], x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.ZRemRange(x.args[1], kv.ZRangeSpec{Kind: kv.ZByLex, LexMin: min, LexMax: max})
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
