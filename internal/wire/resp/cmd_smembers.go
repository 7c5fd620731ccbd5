package resp

var cmdSMembers = def("smembers", 2, "readonly", 1, 1, 1, "read set slow", "set", "1.0.0",
	"Returns all members of a set.", "O(N) where N is the set cardinality.", func(x *cmdCtx) error {
		ms, err := x.tx.SMembers(x.args[1])
		if err != nil {
			return err
		}
		writeSetOf(x.w, ms)
		return nil
	})
