package resp

var cmdGetDel = def(cmdSpec{
	Name: "getdel", Arity: 2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "6.2.0",
	Summary:    "Returns the string value of a key after deleting the key.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		v, ok, err := x.tx.GetDel(x.args[1])
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	},
})
