package resp

var cmdHSet = def(cmdSpec{
	Name: "hset", Arity: -4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Creates or modifies the value of a field in a hash.",
	Complexity: "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
	Handler: func(x *cmdCtx) error {
		n, err := hsetGeneric(x)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})

// hsetGeneric is HSET and HMSET: field/value pairs after the key.
func hsetGeneric(x *cmdCtx) (int64, error) {
	if len(x.args)%2 == 1 {
		return 0, errArity(x.cmd.name)
	}
	return x.tx.HSet(x.args[1], x.args[2:])
}
