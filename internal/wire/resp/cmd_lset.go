package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLSet = def(cmdSpec{
	Name: "lset", Arity: 4, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list slow", Group: "list", Since: "1.0.0",
	Summary:    "Sets the value of an element in a list by its index.",
	Complexity: "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
	Handler: func(x *cmdCtx) error {
		// Redis looks the key up (no such key, WRONGTYPE) before the index.
		ok, err := x.tx.CheckType(x.args[1], kv.TypeList)
		if err != nil {
			return err
		}
		if !ok {
			return errNoSuchKey
		}
		idx, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		if err := x.tx.LSet(x.args[1], idx, x.args[3]); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
