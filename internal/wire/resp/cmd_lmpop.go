package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLMPop = def(cmdSpec{
	Name: "lmpop", Arity: -4, Flags: "write movablekeys",
	ACL: "write list slow", Group: "list", Since: "7.0.0",
	Summary:    "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.",
	Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
	Handler: func(x *cmdCtx) error {
		a, err := parseMPop(x.args, 1, "left", "right")
		if err != nil {
			return err
		}
		key, vals, ok, err := x.tx.MPop(a.keys, listEnd(a.second), a.count)
		if err != nil {
			return err
		}
		writeListMPop(x.w, key, vals, ok)
		return nil
	},
})

// mpopArgs are the arguments of LMPOP, BLMPOP, ZMPOP and BZMPOP after
// numkeys: the keys, which end (second: RIGHT or MAX) and COUNT (1 when
// not given).
type mpopArgs struct {
	keys   [][]byte
	second bool
	count  int64
}

// parseMPop parses numkeys at args[numAt], the keys, the end (first or
// second, case-insensitive) and COUNT, in Redis's order and with its
// errors.
func parseMPop(args [][]byte, numAt int, first, second string) (mpopArgs, error) {
	var a mpopArgs
	numkeys, err := parseRangeLong(args[numAt], 1, maxLong, "numkeys should be greater than 0")
	if err != nil {
		return a, err
	}
	if numkeys >= int64(len(args)-numAt-1) {
		return a, errSyntax
	}
	whereAt := numAt + 1 + int(numkeys)
	switch w := args[whereAt]; {
	case argEq(w, first):
	case argEq(w, second):
		a.second = true
	default:
		return a, errSyntax
	}
	a.keys = args[numAt+1 : whereAt]
	a.count = -1
	for j := whereAt + 1; j < len(args); j++ {
		if a.count != -1 || !argEq(args[j], "count") || j+1 >= len(args) {
			return a, errSyntax
		}
		j++
		if a.count, err = parseRangeLong(args[j], 1, maxLong, "count should be greater than 0"); err != nil {
			return a, err
		}
	}
	if a.count == -1 {
		a.count = 1
	}
	return a, nil
}

func listEnd(right bool) kv.ListEnd {
	if right {
		return kv.ListRight
	}
	return kv.ListLeft
}

// writeListMPop writes LMPOP's reply: [key, [elements]], or a null array.
func writeListMPop(w *Writer, key []byte, vals [][]byte, ok bool) {
	if !ok {
		w.NullArray()
		return
	}
	w.Array(2)
	w.Bulk(key)
	writeBulks(w, vals)
}
