package resp

var cmdGetDel = def("getdel", 2, "write fast", 1, 1, 1, "write string fast", "string", "6.2.0",
	"Returns the string value of a key after deleting the key.", "O(1)", func(x *cmdCtx) error {
		v, ok, err := x.tx.GetDel(x.args[1])
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	})
