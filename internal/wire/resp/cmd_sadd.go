package resp

var cmdSAdd = def("sadd", -3, "write denyoom fast", 1, 1, 1, "write set fast", "set", "1.0.0",
	"Adds one or more members to a set. Creates the key if it doesn't exist.",
	"O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	func(x *cmdCtx) error {
		n, err := x.tx.SAdd(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
