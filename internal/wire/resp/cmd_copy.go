package resp

var cmdCopy = def(cmdSpec{
	Name: "copy", Arity: -3, Flags: "write denyoom", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "keyspace write slow", Group: "generic", Since: "6.2.0",
	Summary:    "Copies the value of a key to a new key.",
	Complexity: "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
	Handler: func(x *cmdCtx) error {
		db := x.c.db
		replace := false
		for i := 3; i < len(x.args); i++ {
			switch {
			case argEq(x.args[i], "replace"):
				replace = true
			case argEq(x.args[i], "db") && i+1 < len(x.args):
				i++
				d, err := parseDB(x.args[i])
				if err != nil {
					return err
				}
				db = d
			default:
				return errSyntax
			}
		}
		ok, err := x.tx.Copy(x.args[1], x.args[2], db, replace)
		if err != nil {
			return err
		}
		if ok {
			serveBlockedIn(x, db, x.args[2])
		}
		x.w.Bool2(ok)
		return nil
	},
})
