package resp

var cmdBZMPop = def("bzmpop", -5, "write blocking movablekeys", 0, 0, 0, "write sortedset slow blocking", "sorted-set", "7.0.0",
	"Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
	"O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
	func(x *cmdCtx) error {
		a, err := parseMPop(x.args, 2, "min", "max")
		if err != nil {
			return err
		}
		r, served, err := blockingZPop(x, a.keys, x.args[1], a.second, a.count)
		if err != nil || r == nil {
			return err
		}
		writeZMPop(x.w, r.key, r.zels, served)
		return nil
	})
