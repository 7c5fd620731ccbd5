package resp

var cmdHVals = def("hvals", 2, "readonly", 1, 1, 1, "read hash slow", "hash", "2.0.0",
	"Returns all values in a hash.", "O(N) where N is the size of the hash.", func(x *cmdCtx) error {
		pairs, err := x.tx.HGetAll(x.args[1])
		if err != nil {
			return err
		}
		x.w.Array(len(pairs))
		for _, p := range pairs {
			x.w.Bulk(p.Value)
		}
		return nil
	})
