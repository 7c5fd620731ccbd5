package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBitOp = def(cmdSpec{
	Name: "bitop", Arity: -4, Flags: "write denyoom", FirstKey: 2, LastKey: -1, Step: 1,
	ACL: "write bitmap slow", Group: "bitmap", Since: "2.6.0",
	Summary:    "Perform bitwise operations between strings",
	Complexity: "O(N)",
	Handler: func(x *cmdCtx) error {
		var op kv.BitOpKind
		switch a := x.args[1]; {
		case argEq(a, "and"):
			op = kv.BitAnd
		case argEq(a, "or"):
			op = kv.BitOr
		case argEq(a, "xor"):
			op = kv.BitXor
		case argEq(a, "not"):
			op = kv.BitNot
		default:
			return errSyntax
		}
		if op == kv.BitNot && len(x.args) != 4 {
			return replyErr("ERR BITOP NOT must be called with a single source key.")
		}
		n, err := x.tx.BitOp(op, x.args[2], x.args[3:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
