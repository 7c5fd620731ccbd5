package resp

var cmdLRem = def("lrem", 4, "write", 1, 1, 1, "write list slow", "list", "1.0.0",
	"Removes elements from a list. Deletes the list if the last element was removed.",
	"O(N+M) where N is the length of the list and M is the number of elements removed.",
	func(x *cmdCtx) error {
		count, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		n, err := x.tx.LRem(x.args[1], count, x.args[3])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
