package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZLexCount = def(cmdSpec{
	Name: "zlexcount", Arity: 4, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "2.8.9",
	Summary:    "Returns the number of members in a sorted set within a lexicographical range.",
	Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
	Handler: func(x *cmdCtx) error {
		min, max, err := parseLexRange(x.args[2], x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.ZLexCount(x.args[1], min, max)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})

// parseLexRange parses the min and max of the BYLEX commands ("-", "+",
// "[x" or "(x").
func parseLexRange(a, b []byte) (kv.LexBound, kv.LexBound, error) {
	min, ok1 := kv.ParseLexBound(a)
	max, ok2 := kv.ParseLexBound(b)
	if !ok1 || !ok2 {
		return min, max, errNotLexRange
	}
	return min, max, nil
}
