package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHTTL = def(cmdSpec{
	Name: "httl", Arity: -5, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "7.4.0",
	Summary:    "Returns the TTL in seconds of a hash field.",
	Complexity: "O(N) where N is the number of specified fields",
	Handler:    func(x *cmdCtx) error { return httlGeneric(x, 1000, true) },
})

// httlGeneric is HTTL, HPTTL, HEXPIRETIME and HPEXPIRETIME: per field the
// time left (relative) or the expiry time, in seconds rounded up (unitMs
// 1000) or ms; -1 without an expiry, -2 without the field.
func httlGeneric(x *cmdCtx, unitMs int64, relative bool) error {
	if _, err := x.tx.CheckType(x.args[1], kv.TypeHash); err != nil {
		return err
	}
	fields, err := parseFields(x.args, 2, numFieldsReadMsg)
	if err != nil {
		return err
	}
	codes, err := x.tx.HFieldExpireAt(x.args[1], fields)
	if err != nil {
		return err
	}
	var base int64
	if relative {
		base = x.tx.Now()
	}
	for i, at := range codes {
		if at < 0 {
			continue
		}
		codes[i] = (at - base + unitMs - 1) / unitMs
	}
	writeInts(x.w, codes)
	return nil
}
