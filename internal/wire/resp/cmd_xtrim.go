package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdXTrim = def(cmdSpec{
	Name: "xtrim", Arity: -4, Flags: "write", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream slow", Group: "stream", Since: "5.0.0",
	Summary:    "Trims the stream to (approximately if '~' is passed) a certain size",
	Complexity: "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
	Handler: func(x *cmdCtx) error {
		var a kv.XAddArgs
		if _, err := parseAddOrTrim(x, &a, false); err != nil {
			return err
		}
		n, err := x.tx.XTrim(x.args[1], a.Trim)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
