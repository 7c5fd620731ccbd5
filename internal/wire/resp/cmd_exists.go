package resp

var cmdExists = def(cmdSpec{
	Name: "exists", Arity: -2, Flags: "readonly fast", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "keyspace read fast", Group: "generic", Since: "1.0.0",
	Summary:    "Determines whether one or more keys exist.",
	Complexity: "O(N) where N is the number of keys to check.",
	Handler:    countKeys,
})

func countKeys(x *cmdCtx) error {
	n, err := x.tx.Exists(x.args[1:])
	if err != nil {
		return err
	}
	x.w.Int(n)
	return nil
}
