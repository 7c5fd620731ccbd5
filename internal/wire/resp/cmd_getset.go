package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdGetSet = def(cmdSpec{
	Name: "getset", Arity: 3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "1.0.0",
	Summary:    "Returns the previous string value of a key after setting it to a new value.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		r, err := x.tx.Set(x.args[1], x.args[2], kv.SetOptions{Get: true})
		if err != nil {
			return err
		}
		bulkOrNull(x.w, r.Old, r.OldFound)
		return nil
	},
})
