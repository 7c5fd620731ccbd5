package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBLMove = def(cmdSpec{
	Name: "blmove", Arity: 6, Flags: "write denyoom noscript blocking", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write list slow blocking", Group: "list", Since: "6.2.0",
	Summary:    "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		from, to, err := parseMoveEnds(x.args[3], x.args[4])
		if err != nil {
			return err
		}
		return blmoveGeneric(x, from, to, x.args[5])
	},
})

// blmoveGeneric is BLMOVE and BRPOPLPUSH: the moved element; at the
// timeout a null array, as Redis replies to a timed-out list waiter (a
// null bulk string inside MULTI, where the command does not block).
func blmoveGeneric(x *cmdCtx, from, to kv.ListEnd, timeout []byte) error {
	deadline, err := parseTimeout(x, timeout)
	if err != nil {
		return err
	}
	dst := append([]byte(nil), x.args[2]...) // used by other clients' serveBlocked
	serve := func(tx *kv.Tx, key []byte) (blockResult, bool, []byte, error) {
		v, ok, err := tx.LMove(key, dst, from, to)
		if !ok || err != nil {
			return blockResult{}, false, nil, err
		}
		return blockResult{val: v}, true, dst, nil
	}
	r, served, gone, err := blockOn(x, x.args[1:2], deadline, kv.TypeList, serve)
	switch {
	case err != nil:
		return err
	case gone:
		return nil
	case r.err != nil:
		return r.err
	case !served && !inExec(x):
		x.w.NullArray()
		return nil
	}
	bulkOrNull(x.w, r.val, served)
	return nil
}
