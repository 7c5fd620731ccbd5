package resp

var cmdHMSet = def("hmset", -4, "write denyoom fast", 1, 1, 1, "write hash fast", "hash", "2.0.0",
	"Sets the values of multiple fields.", "O(N) where N is the number of fields being set.",
	func(x *cmdCtx) error {
		if _, err := hsetGeneric(x); err != nil {
			return err
		}
		x.w.OK()
		return nil
	})
