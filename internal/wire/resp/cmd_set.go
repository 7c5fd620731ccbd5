package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSet = def(cmdSpec{
	Name: "set", Arity: -3, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string slow", Group: "string", Since: "1.0.0",
	Summary:    "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		o, err := parseSetOptions(x, x.args[3:], true)
		if err != nil {
			return err
		}
		r, err := x.tx.Set(x.args[1], x.args[2], o)
		if err != nil {
			return err
		}
		switch {
		case o.Get:
			bulkOrNull(x.w, r.Old, r.OldFound)
		case r.Done:
			x.w.OK()
		default:
			x.w.Null()
		}
		return nil
	},
})

// parseSetOptions parses SET's options (withGet) or MSETEX's (without
// GET), with Redis's rules: one condition, one expiry form, no KEEPTTL with
// an expiry.
func parseSetOptions(x *cmdCtx, opts [][]byte, withGet bool) (kv.SetOptions, error) {
	var o kv.SetOptions
	var unit int64
	var relative, haveExpire bool
	var expArg []byte
	for i := 0; i < len(opts); i++ {
		a := opts[i]
		next := i+1 < len(opts)
		switch {
		case argEq(a, "nx") && o.Cond != kv.SetXX:
			o.Cond = kv.SetNX
		case argEq(a, "xx") && o.Cond != kv.SetNX:
			o.Cond = kv.SetXX
		case withGet && argEq(a, "get"):
			o.Get = true
		case argEq(a, "keepttl") && !haveExpire:
			o.KeepTTL = true
		case (argEq(a, "ex") || argEq(a, "px") || argEq(a, "exat") || argEq(a, "pxat")) && !o.KeepTTL && !haveExpire && next:
			haveExpire = true
			unit = 1
			if argEq(a, "ex") || argEq(a, "exat") {
				unit = 1000
			}
			relative = argEq(a, "ex") || argEq(a, "px")
			i++
			expArg = opts[i]
		default:
			return o, errSyntax
		}
	}
	if haveExpire {
		n, err := parseInt(expArg)
		if err != nil {
			return o, err
		}
		at, ok := kv.SetExpireTime(x.tx.Now(), n, unit, relative)
		if !ok {
			return o, errInvalidExpire(x.cmd.name)
		}
		o.ExpireAt = at
	}
	return o, nil
}
