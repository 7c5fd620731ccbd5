package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdScan = def(cmdSpec{
	Name: "scan", Arity: -2, Flags: "readonly",
	ACL: "keyspace read slow", Group: "generic", Since: "2.8.0",
	Summary:    "Iterates over the key names in the database.",
	Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
	Handler: func(x *cmdCtx) error {
		cursor, err := strconv.ParseUint(string(x.args[1]), 10, 64)
		if err != nil {
			return errInvalidCurs
		}
		var o kv.ScanOptions
		for i := 2; i < len(x.args); i += 2 {
			if i+1 >= len(x.args) {
				return errSyntax
			}
			v := x.args[i+1]
			switch {
			case argEq(x.args[i], "count"):
				n, err := parseInt(v)
				if err != nil {
					return err
				}
				if n < 1 {
					return errSyntax
				}
				o.Count = int(min(n, 1<<30))
			case argEq(x.args[i], "match"):
				o.Match = v
				if len(v) == 1 && v[0] == '*' {
					o.Match = nil
				}
			case argEq(x.args[i], "type"):
				t, ok := kv.ParseType(string(v))
				if !ok {
					// Redis accepts unknown type names and matches nothing.
					t = kv.Type(0xff)
				}
				o.Type = t
			default:
				return errSyntax
			}
		}
		next, keys, err := x.tx.Scan(cursor, o)
		if err != nil {
			return err
		}
		x.w.Array(2)
		x.w.BulkString(strconv.FormatUint(next, 10))
		x.w.Array(len(keys))
		for _, k := range keys {
			x.w.Bulk(k)
		}
		return nil
	},
})
