package resp

var cmdLInsert = def("linsert", 5, "write denyoom", 1, 1, 1, "write list slow", "list", "2.2.0",
	"Inserts an element before or after another element in a list.",
	"O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
	func(x *cmdCtx) error {
		var before bool
		switch {
		case argEq(x.args[2], "before"):
			before = true
		case argEq(x.args[2], "after"):
		default:
			return errSyntax
		}
		n, err := x.tx.LInsert(x.args[1], before, x.args[3], x.args[4])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
