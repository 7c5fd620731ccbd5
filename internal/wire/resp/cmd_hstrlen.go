package resp

var cmdHStrLen = def("hstrlen", 3, "readonly fast", 1, 1, 1, "read hash fast", "hash", "3.2.0",
	"Returns the length of the value of a field.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.HStrLen(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
