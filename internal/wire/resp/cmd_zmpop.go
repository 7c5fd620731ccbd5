package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZMPop = def(cmdSpec{
	Name: "zmpop", Arity: -4, Flags: "write movablekeys",
	ACL: "write sortedset slow", Group: "sorted-set", Since: "7.0.0",
	Summary:    "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.",
	Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
	Handler: func(x *cmdCtx) error {
		a, err := parseMPop(x.args, 1, "min", "max")
		if err != nil {
			return err
		}
		key, els, ok, err := x.tx.ZPopFirst(a.keys, a.second, a.count)
		if err != nil {
			return err
		}
		writeZMPop(x.w, key, els, ok)
		return nil
	},
})

// writeZMPop writes ZMPOP's reply: [key, [[member, score], ...]] in both
// protocols, or a null array.
func writeZMPop(w *Writer, key []byte, els []kv.ZMember, ok bool) {
	if !ok {
		w.NullArray()
		return
	}
	w.Array(2)
	w.Bulk(key)
	w.Array(len(els))
	for _, e := range els {
		w.Array(2)
		w.Bulk(e.Member)
		w.Double(e.Score)
	}
}
