package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSetEx = def(cmdSpec{
	Name: "setex", Arity: 4, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string slow", Group: "string", Since: "2.0.0",
	Summary:    "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
	Complexity: "O(1)",
	Handler:    func(x *cmdCtx) error { return setWithTTL(x, 1000) },
})

// setWithTTL is SETEX and PSETEX: key, relative time in unitMs, value.
func setWithTTL(x *cmdCtx, unitMs int64) error {
	n, err := parseInt(x.args[2])
	if err != nil {
		return err
	}
	at, ok := kv.SetExpireTime(x.tx.Now(), n, unitMs, true)
	if !ok {
		return errInvalidExpire(x.cmd.name)
	}
	if _, err := x.tx.Set(x.args[1], x.args[3], kv.SetOptions{ExpireAt: at}); err != nil {
		return err
	}
	x.w.OK()
	return nil
}
