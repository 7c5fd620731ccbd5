package resp

import (
	"bytes"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdSort = def(cmdSpec{
	Name: "sort", Arity: -2, Flags: "write denyoom movablekeys", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write set sortedset list slow dangerous", Group: "generic", Since: "1.0.0",
	Summary:    "Sorts the elements in a list, a set, or a sorted set, optionally storing the result.",
	Complexity: "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
	Handler:    func(x *cmdCtx) error { return sortGeneric(x, false) },
})

// sortGeneric is SORT and SORT_RO (readonly: no STORE), with Redis's
// option parsing: the last ASC/DESC wins, LIMIT takes two integers.
func sortGeneric(x *cmdCtx, readonly bool) error {
	o := kv.SortOptions{Count: -1}
	var store []byte
	args := x.args
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case argEq(a, "asc"):
			o.Desc = false
		case argEq(a, "desc"):
			o.Desc = true
		case argEq(a, "alpha"):
			o.Alpha = true
		case argEq(a, "limit") && left >= 2:
			var err error
			if o.Offset, err = parseInt(args[j+1]); err != nil {
				return err
			}
			if o.Count, err = parseInt(args[j+2]); err != nil {
				return err
			}
			j += 2
		case !readonly && argEq(a, "store") && left >= 1:
			store = args[j+1]
			j++
		case argEq(a, "by") && left >= 1:
			o.By = args[j+1]
			if bytes.IndexByte(o.By, '*') >= 0 && !x.c.fullReadAccess(x.cmd, args) {
				return replyErr("ERR BY option of SORT denied due to insufficient ACL permissions.")
			}
			j++
		case argEq(a, "get") && left >= 1:
			if !x.c.fullReadAccess(x.cmd, args) {
				return replyErr("ERR GET option of SORT denied due to insufficient ACL permissions.")
			}
			o.Gets = append(o.Gets, args[j+1])
			j++
		default:
			return errSyntax
		}
	}
	if store != nil {
		n, err := x.tx.SortStore(args[1], o, store)
		if err != nil {
			return err
		}
		x.w.Int(n)
		if n > 0 {
			serveBlocked(x, store)
		}
		return nil
	}
	out, err := x.tx.Sort(args[1], o)
	if err != nil {
		return err
	}
	writeBulksOrNull(x.w, out)
	return nil
}
