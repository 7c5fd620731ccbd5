package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdXRange = def(cmdSpec{
	Name: "xrange", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read stream slow", Group: "stream", Since: "5.0.0",
	Summary:    "Return a range of elements in a stream, with IDs matching the specified IDs interval",
	Complexity: "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
	Handler:    func(x *cmdCtx) error { return xrangeGeneric(x, false) },
})

// xrangeGeneric is XRANGE key start end [COUNT n] and XREVRANGE key end
// start [COUNT n]: "-" and "+" are the smallest and largest IDs, "(" makes
// an end exclusive, a bare ms takes every sequence of it. COUNT 0 (or
// negative) gives a null array.
func xrangeGeneric(x *cmdCtx, rev bool) error {
	startArg, endArg := x.args[2], x.args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, err := parseRangeStart(startArg)
	if err != nil {
		return err
	}
	end, err := parseRangeEnd(endArg)
	if err != nil {
		return err
	}
	count := int64(-1)
	for j := 4; j < len(x.args); j++ {
		if !argEq(x.args[j], "count") || j+1 >= len(x.args) {
			return errSyntax
		}
		if count, err = parseInt(x.args[j+1]); err != nil {
			return err
		}
		count = max(count, 0)
		j++
	}
	if count == 0 {
		ok, err := x.tx.CheckType(x.args[1], kv.TypeStream)
		if err != nil {
			return err
		}
		if ok {
			x.w.NullArray()
		} else {
			x.w.Array(0)
		}
		return nil
	}
	entries, err := x.tx.XRange(x.args[1], start, end, max(count, 0), rev)
	if err != nil {
		return err
	}
	writeStreamEntries(x.w, entries)
	return nil
}
