package resp

var cmdSPop = def("spop", -2, "write fast", 1, 1, 1, "write set fast", "set", "1.0.0",
	"Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.",
	"Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
	func(x *cmdCtx) error {
		switch len(x.args) {
		case 2:
			ms, ok, err := x.tx.SPop(x.args[1], -1)
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Bulk(ms[0])
			return nil
		case 3:
			n, err := parsePositive(x.args[2], "")
			if err != nil {
				return err
			}
			ms, _, err := x.tx.SPop(x.args[1], n)
			if err != nil {
				return err
			}
			writeSetOf(x.w, ms)
			return nil
		}
		return errSyntax
	})
