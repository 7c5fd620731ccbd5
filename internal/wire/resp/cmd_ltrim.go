package resp

var cmdLTrim = def("ltrim", 4, "write", 1, 1, 1, "write list slow", "list", "1.0.0",
	"Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
	"O(N) where N is the number of elements to be removed by the operation.",
	func(x *cmdCtx) error {
		start, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		stop, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		if err := x.tx.LTrim(x.args[1], start, stop); err != nil {
			return err
		}
		x.w.OK()
		return nil
	})
