package resp

var cmdBZMPop = def(cmdSpec{
	Name: "bzmpop", Arity: -5, Flags: "write blocking movablekeys",
	ACL: "write sortedset slow blocking", Group: "sorted-set", Since: "7.0.0",
	Summary:    "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
	Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
	Handler: func(x *cmdCtx) error {
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
	},
})
