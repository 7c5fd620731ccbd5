package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZAdd = def(cmdSpec{
	Name: "zadd", Arity: -4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset fast", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.",
	Complexity: "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
	Handler:    func(x *cmdCtx) error { return zaddGeneric(x, false) },
})

// zaddGeneric is ZADD and ZINCRBY (incr), with Redis's option rules.
func zaddGeneric(x *cmdCtx, incr bool) error {
	o := kv.ZAddOptions{Incr: incr}
	ch := false
	i := 2
	for ; i < len(x.args); i++ {
		a := x.args[i]
		switch {
		case argEq(a, "nx"):
			o.NX = true
		case argEq(a, "xx"):
			o.XX = true
		case argEq(a, "ch"):
			ch = true
		case argEq(a, "incr"):
			o.Incr = true
		case argEq(a, "gt"):
			o.GT = true
		case argEq(a, "lt"):
			o.LT = true
		default:
			goto pairs
		}
	}
pairs:
	rest := x.args[i:]
	if len(rest) == 0 || len(rest)%2 != 0 {
		return errSyntax
	}
	if o.NX && o.XX {
		return replyErr("ERR XX and NX options at the same time are not compatible")
	}
	if (o.GT && o.NX) || (o.LT && o.NX) || (o.GT && o.LT) {
		return replyErr("ERR GT, LT, and/or NX options at the same time are not compatible")
	}
	if o.Incr && len(rest) > 2 {
		return replyErr("ERR INCR option supports a single increment-element pair")
	}
	scores := make([]float64, 0, len(rest)/2)
	members := make([][]byte, 0, len(rest)/2)
	for j := 0; j < len(rest); j += 2 {
		f, ok := kv.ParseScore(rest[j])
		if !ok {
			return errNotFloat
		}
		scores = append(scores, f)
		members = append(members, rest[j+1])
	}
	r, err := x.tx.ZAdd(x.args[1], o, scores, members)
	if err != nil {
		return err
	}
	switch {
	case o.Incr && r.ScoreOK:
		x.w.Double(r.Score)
	case o.Incr:
		x.w.Null()
	case ch:
		x.w.Int(r.Added + r.Updated)
	default:
		x.w.Int(r.Added)
	}
	if r.Added > 0 {
		serveBlocked(x, x.args[1]) // the key may have just been created
	}
	return nil
}
