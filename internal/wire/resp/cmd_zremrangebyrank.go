package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRemRangeByRank = def("zremrangebyrank", 4, "write", 1, 1, 1, "write sortedset slow", "sorted-set", "2.0.0",
	"Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.",
	"O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
	func(x *cmdCtx) error {
		start, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		stop, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.ZRemRange(x.args[1], kv.ZRangeSpec{Kind: kv.ZByRank, Start: start, Stop: stop})
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
