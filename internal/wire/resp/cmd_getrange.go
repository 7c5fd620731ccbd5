package resp

var cmdGetRange = def(cmdSpec{
	Name: "getrange", Arity: 4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read string slow", Group: "string", Since: "2.4.0",
	Summary:    "Returns a substring of the string stored at a key.",
	Complexity: "O(N) where N is the length of the returned string.",
	Handler:    getRange,
})

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
