package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBLMPop = def(cmdSpec{
	Name: "blmpop", Arity: -5, Flags: "write blocking movablekeys",
	ACL: "write list slow blocking", Group: "list", Since: "7.0.0",
	Summary:    "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
	Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
	Handler: func(x *cmdCtx) error {
		a, err := parseMPop(x.args, 2, "left", "right")
		if err != nil {
			return err
		}
		deadline, err := parseTimeout(x, x.args[1])
		if err != nil {
			return err
		}
		end := listEnd(a.second)
		serve := func(tx *kv.Tx, key []byte) (blockResult, bool, []byte, error) {
			_, vals, ok, err := tx.MPop([][]byte{key}, end, a.count)
			// key may be another client's argument: the result outlives it.
			return blockResult{key: append([]byte(nil), key...), vals: vals}, ok, nil, err
		}
		r, served, gone, err := blockOn(x, a.keys, deadline, kv.TypeList, serve)
		switch {
		case err != nil:
			return err
		case gone:
			return nil
		case r.err != nil:
			return r.err
		}
		writeListMPop(x.w, r.key, r.vals, served)
		return nil
	},
})
