package resp

var cmdZRank = def(cmdSpec{
	Name: "zrank", Arity: -3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "2.0.0",
	Summary:    "Returns the index of a member in a sorted set ordered by ascending scores.",
	Complexity: "O(log(N))",
	Handler:    func(x *cmdCtx) error { return zrankGeneric(x, false) },
})

// zrankGeneric is ZRANK and ZREVRANK, with Redis 7.2's WITHSCORE.
func zrankGeneric(x *cmdCtx, rev bool) error {
	withScore := false
	switch {
	case len(x.args) == 4 && argEq(x.args[3], "withscore"):
		withScore = true
	case len(x.args) > 3:
		return errSyntax
	}
	r, s, ok, err := x.tx.ZRank(x.args[1], x.args[2], rev)
	if err != nil {
		return err
	}
	switch {
	case !ok && withScore:
		x.w.NullArray()
	case !ok:
		x.w.Null()
	case withScore:
		x.w.Array(2)
		x.w.Int(r)
		x.w.Double(s)
	default:
		x.w.Int(r)
	}
	return nil
}
