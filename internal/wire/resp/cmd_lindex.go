package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLIndex = def(cmdSpec{
	Name: "lindex", Arity: 3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read list slow", Group: "list", Since: "1.0.0",
	Summary:    "Returns an element from a list by its index.",
	Complexity: "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
	Handler: func(x *cmdCtx) error {
		// Redis looks the key up (null, WRONGTYPE) before parsing the index.
		ok, err := x.tx.CheckType(x.args[1], kv.TypeList)
		if err != nil {
			return err
		}
		if !ok {
			_, _, err := x.tx.LIndex(x.args[1], 0) // counts the miss
			x.w.Null()
			return err
		}
		idx, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		v, ok, err := x.tx.LIndex(x.args[1], idx)
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	},
})
