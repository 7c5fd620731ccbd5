package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLPush = def(cmdSpec{
	Name: "lpush", Arity: -3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list fast", Group: "list", Since: "1.0.0",
	Summary:    "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
	Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	Handler:    func(x *cmdCtx) error { return pushGeneric(x, kv.ListLeft, false) },
})

// pushGeneric is LPUSH, RPUSH, LPUSHX and RPUSHX: it replies with the new
// length and serves the clients blocked on the key.
func pushGeneric(x *cmdCtx, end kv.ListEnd, xx bool) error {
	n, err := x.tx.Push(x.args[1], end, xx, x.args[2:])
	if err != nil {
		return err
	}
	x.w.Int(n)
	if n > 0 {
		serveBlocked(x, x.args[1])
	}
	return nil
}
