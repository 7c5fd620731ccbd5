package resp

var cmdExists = def("exists", -2, "readonly fast", 1, -1, 1, "keyspace read fast", "generic", "1.0.0",
	"Determines whether one or more keys exist.", "O(N) where N is the number of keys to check.", countKeys)

func countKeys(x *cmdCtx) error {
	n, err := x.tx.Exists(x.args[1:])
	if err != nil {
		return err
	}
	x.w.Int(n)
	return nil
}
