package resp

var cmdStrLen = def("strlen", 2, "readonly fast", 1, 1, 1, "read string fast", "string", "2.2.0",
	"Returns the length of a string value.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.StrLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
