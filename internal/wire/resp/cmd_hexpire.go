package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHExpire = def(cmdSpec{
	Name: "hexpire", Arity: -6, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "7.4.0",
	Summary:    "Set expiry for hash field using relative time to expire (seconds)",
	Complexity: "O(N) where N is the number of specified fields",
	Handler:    func(x *cmdCtx) error { return hexpireGeneric(x, 1000, true) },
})

// The replies about the FIELDS clause of the hash field commands.
var (
	errFieldsMissing  = replyErr("ERR Mandatory argument FIELDS is missing or not at the right position")
	errFieldsMismatch = replyErr("ERR The `numfields` parameter must match the number of arguments")
)

const (
	numFieldsWriteMsg = "Parameter `numFields` should be greater than 0"
	numFieldsReadMsg  = "Number of fields must be a positive integer"
)

// parseFields reads "FIELDS numfields field ..." with FIELDS at args[at],
// the fields running to the end; numMsg is the reply for a count that is
// not a positive integer.
func parseFields(args [][]byte, at int, numMsg string) ([][]byte, error) {
	if at >= len(args) || !argEq(args[at], "fields") {
		return nil, errFieldsMissing
	}
	if at+1 >= len(args) {
		return nil, replyErr("ERR " + numMsg)
	}
	n, err := parseRangeLong(args[at+1], 1, maxLong, numMsg)
	if err != nil {
		return nil, err
	}
	if n != int64(len(args)-at-2) {
		return nil, errFieldsMismatch
	}
	return args[at+2:], nil
}

// parseFieldExpire converts the time argument of the hash field commands
// to absolute Unix ms: not negative, within Redis's field expiry range.
func parseFieldExpire(x *cmdCtx, b []byte, unitMs int64, relative bool) (int64, error) {
	n, err := parseInt(b)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, replyErr("ERR invalid expire time, must be >= 0")
	}
	if unitMs == 1000 {
		if n > kv.MaxFieldExpire/1000 {
			return 0, errInvalidExpire(x.cmd.name)
		}
		n *= 1000
	}
	var base int64
	if relative {
		base = x.tx.Now()
	}
	if n > kv.MaxFieldExpire-base {
		return 0, errInvalidExpire(x.cmd.name)
	}
	return n + base, nil
}

// hexpireGeneric is HEXPIRE, HPEXPIRE, HEXPIREAT and HPEXPIREAT.
func hexpireGeneric(x *cmdCtx, unitMs int64, relative bool) error {
	if _, err := x.tx.CheckType(x.args[1], kv.TypeHash); err != nil {
		return err
	}
	at, err := parseFieldExpire(x, x.args[2], unitMs, relative)
	if err != nil {
		return err
	}
	cond, fieldsAt := kv.HExpireAlways, 3
	switch {
	case argEq(x.args[3], "nx"):
		cond = kv.HExpireNX
	case argEq(x.args[3], "xx"):
		cond = kv.HExpireXX
	case argEq(x.args[3], "gt"):
		cond = kv.HExpireGT
	case argEq(x.args[3], "lt"):
		cond = kv.HExpireLT
	}
	if cond != kv.HExpireAlways {
		fieldsAt = 4
	}
	fields, err := parseFields(x.args, fieldsAt, numFieldsWriteMsg)
	if err != nil {
		return err
	}
	codes, err := x.tx.HExpire(x.args[1], at, cond, fields)
	if err != nil {
		return err
	}
	writeInts(x.w, codes)
	return nil
}
