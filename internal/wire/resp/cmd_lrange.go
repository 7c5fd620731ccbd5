package resp

var cmdLRange = def("lrange", 4, "readonly", 1, 1, 1, "read list slow", "list", "1.0.0",
	"Returns a range of elements from a list.",
	"O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
	func(x *cmdCtx) error {
		start, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		stop, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		vals, err := x.tx.LRange(x.args[1], start, stop)
		if err != nil {
			return err
		}
		writeBulks(x.w, vals)
		return nil
	})
