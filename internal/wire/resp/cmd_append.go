package resp

var cmdAppend = def("append", 3, "write denyoom fast", 1, 1, 1, "write string fast", "string", "2.0.0",
	"Appends a string to the value of a key. Creates the key if it doesn't exist.", "O(1).", func(x *cmdCtx) error {
		n, err := x.tx.Append(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
