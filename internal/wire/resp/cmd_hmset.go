package resp

var cmdHMSet = def(cmdSpec{
	Name: "hmset", Arity: -4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Sets the values of multiple fields.",
	Complexity: "O(N) where N is the number of fields being set.",
	Handler: func(x *cmdCtx) error {
		if _, err := hsetGeneric(x); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
