package resp

import (
	"github.com/mayfly/mayfly/internal/rdb"
)

var cmdDump = def(cmdSpec{
	Name: "dump", Arity: 2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace read slow", Group: "generic", Since: "2.6.0",
	Summary:    "Return a serialized version of the value stored at the specified key.",
	Complexity: "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
	Handler: func(x *cmdCtx) error {
		v, ok, err := x.tx.ReadValue(x.args[1], nil, true)
		if err != nil {
			return err
		}
		if !ok {
			x.w.Null()
			return nil
		}
		x.w.Bulk(rdb.Dump(toRDB(&v), x.rdbConfig()))
		return nil
	},
})
