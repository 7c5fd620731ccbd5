package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHSetEx = def(cmdSpec{
	Name: "hsetex", Arity: -6, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "8.0.0",
	Summary:    "Set the value of one or more fields of a given hash key, and optionally set their expiration.",
	Complexity: "O(N) where N is the number of fields being set.",
	Handler: func(x *cmdCtx) error {
		cond, mode, at, pairs, err := parseHSetEx(x)
		if err != nil {
			return err
		}
		ok, err := x.tx.HSetEx(x.args[1], cond, mode, at, pairs)
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	},
})

// parseHSetEx reads HSETEX's options as Redis's hsetexParseArgs, before
// the key is looked at.
func parseHSetEx(x *cmdCtx) (kv.HSetExCond, kv.HSetExMode, int64, [][]byte, error) {
	cond, mode := kv.HSetExAlways, kv.HSetExClear
	var at int64
	args := x.args
	expirySet := false
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case argEq(a, "fields"):
			if i >= len(args)-3 {
				return 0, 0, 0, nil, errArity(x.cmd.name)
			}
			n, err := parseRangeLong(args[i+1], 1, 1<<31-1, "invalid number of fields")
			if err != nil {
				return 0, 0, 0, nil, err
			}
			rest := len(args) - i - 2
			if rest%2 != 0 || n != int64(rest/2) {
				return 0, 0, 0, nil, errArity(x.cmd.name)
			}
			return cond, mode, at, args[i+2:], nil
		case argEq(a, "ex") || argEq(a, "px") || argEq(a, "exat") || argEq(a, "pxat"):
			if expirySet {
				return 0, 0, 0, nil, replyErr("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
			}
			if i >= len(args)-1 {
				return 0, 0, 0, nil, replyErr("ERR missing expire time")
			}
			expirySet, mode = true, kv.HSetExAt
			unit := int64(1)
			if argEq(a, "ex") || argEq(a, "exat") {
				unit = 1000
			}
			i++
			var err error
			if at, err = parseFieldExpire(x, args[i], unit, argEq(a, "ex") || argEq(a, "px")); err != nil {
				return 0, 0, 0, nil, err
			}
		case argEq(a, "keepttl"):
			if expirySet {
				return 0, 0, 0, nil, replyErr("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
			}
			expirySet, mode = true, kv.HSetExKeepTTL
		case argEq(a, "fxx") || argEq(a, "fnx"):
			if cond != kv.HSetExAlways {
				return 0, 0, 0, nil, replyErr("ERR Only one of FXX or FNX arguments can be specified")
			}
			cond = kv.HSetExFXX
			if argEq(a, "fnx") {
				cond = kv.HSetExFNX
			}
		default:
			return 0, 0, 0, nil, replyErr("ERR unknown argument: " + string(a))
		}
	}
	return 0, 0, 0, nil, errArity(x.cmd.name)
}
