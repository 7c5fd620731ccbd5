package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLPop = def(cmdSpec{
	Name: "lpop", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list fast", Group: "list", Since: "1.0.0",
	Summary:    "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.",
	Complexity: "O(N) where N is the number of elements returned",
	Handler:    func(x *cmdCtx) error { return popGeneric(x, kv.ListLeft) },
})

// popGeneric is LPOP and RPOP: a bulk string without a count, an array
// with one (a null array when the key is missing).
func popGeneric(x *cmdCtx, end kv.ListEnd) error {
	if len(x.args) > 3 {
		return errArity(x.cmd.name)
	}
	hasCount := len(x.args) == 3
	n := int64(1)
	if hasCount {
		var err error
		if n, err = parsePositive(x.args[2], ""); err != nil {
			return err
		}
	}
	vals, ok, err := x.tx.Pop(x.args[1], end, n)
	if err != nil {
		return err
	}
	switch {
	case !ok && hasCount:
		x.w.NullArray()
	case !ok:
		x.w.Null()
	case hasCount:
		writeBulks(x.w, vals)
	default:
		x.w.Bulk(vals[0])
	}
	return nil
}
