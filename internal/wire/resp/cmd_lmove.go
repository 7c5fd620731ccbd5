package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLMove = def("lmove", 5, "write denyoom", 1, 2, 1, "write list slow", "list", "6.2.0",
	"Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.",
	"O(1)", func(x *cmdCtx) error {
		from, to, err := parseMoveEnds(x.args[3], x.args[4])
		if err != nil {
			return err
		}
		return lmoveGeneric(x, from, to)
	})

// parseListEnd parses LEFT or RIGHT.
func parseListEnd(b []byte) (kv.ListEnd, error) {
	switch {
	case argEq(b, "left"):
		return kv.ListLeft, nil
	case argEq(b, "right"):
		return kv.ListRight, nil
	}
	return 0, errSyntax
}

func parseMoveEnds(a, b []byte) (kv.ListEnd, kv.ListEnd, error) {
	from, err := parseListEnd(a)
	if err != nil {
		return 0, 0, err
	}
	to, err := parseListEnd(b)
	return from, to, err
}

// lmoveGeneric is LMOVE and RPOPLPUSH: the moved element or null, and the
// clients blocked on the destination are served.
func lmoveGeneric(x *cmdCtx, from, to kv.ListEnd) error {
	v, ok, err := x.tx.LMove(x.args[1], x.args[2], from, to)
	if err != nil {
		return err
	}
	bulkOrNull(x.w, v, ok)
	if ok {
		serveBlocked(x, x.args[2])
	}
	return nil
}
