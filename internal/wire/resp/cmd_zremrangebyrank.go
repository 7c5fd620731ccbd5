package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRemRangeByRank = def(cmdSpec{
	Name: "zremrangebyrank", Arity: 4, Flags: "write", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset slow", Group: "sorted-set", Since: "2.0.0",
	Summary:    "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.",
	Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
	Handler: func(x *cmdCtx) error {
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
	},
})
