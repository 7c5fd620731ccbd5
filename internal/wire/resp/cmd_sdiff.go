package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSDiff = def(cmdSpec{
	Name: "sdiff", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "read set slow", Group: "set", Since: "1.0.0",
	Summary:    "Returns the difference of multiple sets.",
	Complexity: "O(N) where N is the total number of elements in all given sets.",
	Handler:    func(x *cmdCtx) error { return setOpGeneric(x, kv.SetDiff) },
})
