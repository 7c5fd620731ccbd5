package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdExpire = def(cmdSpec{
	Name: "expire", Arity: -3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace write fast", Group: "generic", Since: "1.0.0",
	Summary:    "Sets the expiration time of a key in seconds.",
	Complexity: "O(1)",
	Handler:    func(x *cmdCtx) error { return expireGeneric(x, 1000, true) },
})

// expireGeneric is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT.
func expireGeneric(x *cmdCtx, unitMs int64, relative bool) error {
	cond := kv.ExpireAlways
	var nx, xx, gt, lt bool
	for _, a := range x.args[3:] {
		switch {
		case argEq(a, "nx"):
			nx, cond = true, cond|kv.ExpireNX
		case argEq(a, "xx"):
			xx, cond = true, cond|kv.ExpireXX
		case argEq(a, "gt"):
			gt, cond = true, cond|kv.ExpireGT
		case argEq(a, "lt"):
			lt, cond = true, cond|kv.ExpireLT
		default:
			return replyErr("ERR Unsupported option " + string(a))
		}
	}
	if nx && (xx || gt || lt) {
		return replyErr("ERR NX and XX, GT or LT options at the same time are not compatible")
	}
	if gt && lt {
		return replyErr("ERR GT and LT options at the same time are not compatible")
	}
	n, err := parseInt(x.args[2])
	if err != nil {
		return err
	}
	at, ok := kv.ExpireTime(x.tx.Now(), n, unitMs, relative)
	if !ok {
		return errInvalidExpire(x.cmd.name)
	}
	done, err := x.tx.Expire(x.args[1], at, cond)
	if err != nil {
		return err
	}
	x.w.Bool2(done)
	return nil
}
