package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSInter = def(cmdSpec{
	Name: "sinter", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "read set slow", Group: "set", Since: "1.0.0",
	Summary:    "Returns the intersect of multiple sets.",
	Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
	Handler:    func(x *cmdCtx) error { return setOpGeneric(x, kv.SetInter) },
})

// setOpGeneric is SINTER, SUNION and SDIFF: the members as a set reply.
func setOpGeneric(x *cmdCtx, op kv.SetOp) error {
	ms, err := x.tx.SetCompute(op, x.args[1:])
	if err != nil {
		return err
	}
	writeSetOf(x.w, ms)
	return nil
}

// setStoreGeneric is SINTERSTORE, SUNIONSTORE and SDIFFSTORE.
func setStoreGeneric(x *cmdCtx, op kv.SetOp) error {
	n, err := x.tx.SetStore(op, x.args[1], x.args[2:])
	if err != nil {
		return err
	}
	x.w.Int(n)
	return nil
}
