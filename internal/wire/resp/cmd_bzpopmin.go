package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBZPopMin = def(cmdSpec{
	Name: "bzpopmin", Arity: -3, Flags: "write noscript blocking fast", FirstKey: 1, LastKey: -2, Step: 1,
	ACL: "write sortedset fast blocking", Group: "sorted-set", Since: "5.0.0",
	Summary:    "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
	Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
	Handler:    func(x *cmdCtx) error { return bzpopGeneric(x, false) },
})

// bzpopGeneric is BZPOPMIN and BZPOPMAX: [key, member, score] in both
// protocols, or a null array at the timeout.
func bzpopGeneric(x *cmdCtx, max bool) error {
	r, served, err := blockingZPop(x, x.args[1:len(x.args)-1], x.args[len(x.args)-1], max, 1)
	if err != nil || r == nil {
		return err
	}
	if !served {
		x.w.NullArray()
		return nil
	}
	x.w.Array(3)
	x.w.Bulk(r.key)
	x.w.Bulk(r.zels[0].Member)
	x.w.Double(r.zels[0].Score)
	return nil
}

// blockingZPop pops up to n elements from the lowest (or highest, max)
// end of the first sorted set among keys, blocking until one is there or
// the timeout (seconds, in argument timeout) passes. r is nil when no
// reply is due (the client went away); served is false at the timeout.
func blockingZPop(x *cmdCtx, keys [][]byte, timeout []byte, max bool, n int64) (r *blockResult, served bool, err error) {
	deadline, err := parseTimeout(x, timeout)
	if err != nil {
		return nil, false, err
	}
	serve := func(tx *kv.Tx, key []byte) (blockResult, bool, []byte, error) {
		_, els, ok, err := tx.ZPopFirst([][]byte{key}, max, n)
		// key may be another client's argument: the result outlives it.
		return blockResult{key: append([]byte(nil), key...), zels: els}, ok, nil, err
	}
	res, served, gone, err := blockOn(x, keys, deadline, kv.TypeZSet, serve)
	switch {
	case err != nil:
		return nil, false, err
	case gone:
		return nil, false, nil
	case res.err != nil:
		return nil, false, res.err
	}
	return &res, served, nil
}
