package resp

var cmdGetRange = def("getrange", 4, "readonly", 1, 1, 1, "read string slow", "string", "2.4.0",
	"Returns a substring of the string stored at a key.", "O(N) where N is the length of the returned string.",
	getRange)

func getRange(x *cmdCtx) error {
	start, err := parseInt(x.args[2])
	if err != nil {
		return err
	}
	end, err := parseInt(x.args[3])
	if err != nil {
		return err
	}
	v, err := x.tx.GetRange(x.args[1], start, end)
	if err != nil {
		return err
	}
	x.w.Bulk(v)
	return nil
}
