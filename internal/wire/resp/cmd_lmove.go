package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLMove = def(cmdSpec{
	Name: "lmove", Arity: 5, Flags: "write denyoom", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write list slow", Group: "list", Since: "6.2.0",
	Summary:    "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		from, to, err := parseMoveEnds(x.args[3], x.args[4])
		if err != nil {
			return err
		}
		return lmoveGeneric(x, from, to)
	},
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
