package resp

var cmdZPopMin = def(cmdSpec{
	Name: "zpopmin", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset fast", Group: "sorted-set", Since: "5.0.0",
	Summary:    "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
	Complexity: "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
	Handler:    func(x *cmdCtx) error { return zpopGeneric(x, false) },
})

// zpopGeneric is ZPOPMIN and ZPOPMAX: a flat [member, score, ...] array,
// pairs in RESP3 when a count is given.
func zpopGeneric(x *cmdCtx, max bool) error {
	if len(x.args) > 3 {
		return errSyntax
	}
	n := int64(1)
	hasCount := len(x.args) == 3
	if hasCount {
		var err error
		if n, err = parsePositive(x.args[2], ""); err != nil {
			return err
		}
	}
	els, err := x.tx.ZPop(x.args[1], max, n)
	if err != nil {
		return err
	}
	if hasCount && x.w.Proto() >= 3 {
		writeZMembers(x.w, els, true)
		return nil
	}
	x.w.Array(2 * len(els))
	for _, e := range els {
		x.w.Bulk(e.Member)
		x.w.Double(e.Score)
	}
	return nil
}
