package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBLMove = def("blmove", 6, "write denyoom blocking", 1, 2, 1, "write list slow blocking", "list", "6.2.0",
	"Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.",
	"O(1)", func(x *cmdCtx) error {
		from, to, err := parseMoveEnds(x.args[3], x.args[4])
		if err != nil {
			return err
		}
		deadline, err := parseTimeout(x, x.args[5])
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
		r, served, gone, err := blockOn(x, x.args[1:2], deadline, serve)
		switch {
		case err != nil:
			return err
		case gone:
			return nil
		case r.err != nil:
			return r.err
		}
		bulkOrNull(x.w, r.val, served)
		return nil
	})
