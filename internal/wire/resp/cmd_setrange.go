package resp

var cmdSetRange = def("setrange", 4, "write denyoom", 1, 1, 1, "write string slow", "string", "2.2.0",
	"Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", "O(1)",
	func(x *cmdCtx) error {
		off, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		n, err := x.tx.SetRange(x.args[1], off, x.args[3])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
