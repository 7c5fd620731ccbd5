package resp

var cmdSRem = def("srem", -3, "write fast", 1, 1, 1, "write set fast", "set", "1.0.0",
	"Removes one or more members from a set. Deletes the set if the last member was removed.",
	"O(N) where N is the number of members to be removed.", func(x *cmdCtx) error {
		n, err := x.tx.SRem(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
