package resp

var cmdSMove = def("smove", 4, "write fast", 1, 2, 1, "write set fast", "set", "1.0.0",
	"Moves a member from one set to another.", "O(1)", func(x *cmdCtx) error {
		ok, err := x.tx.SMove(x.args[1], x.args[2], x.args[3])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	})
