package resp

var cmdSIsMember = def("sismember", 3, "readonly fast", 1, 1, 1, "read set fast", "set", "1.0.0",
	"Determines whether a member belongs to a set.", "O(1)", func(x *cmdCtx) error {
		got, err := x.tx.SIsMember(x.args[1], x.args[2:3])
		if err != nil {
			return err
		}
		x.w.Bool2(got[0])
		return nil
	})
