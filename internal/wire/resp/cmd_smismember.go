package resp

var cmdSMIsMember = def("smismember", -3, "readonly fast", 1, 1, 1, "read set fast", "set", "6.2.0",
	"Determines whether multiple members belong to a set.", "O(N) where N is the number of elements being checked for membership",
	func(x *cmdCtx) error {
		got, err := x.tx.SIsMember(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Array(len(got))
		for _, ok := range got {
			x.w.Bool2(ok)
		}
		return nil
	})
