package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZUnion = def(cmdSpec{
	Name: "zunion", Arity: -3, Flags: "readonly movablekeys",
	ACL: "read sortedset slow", Group: "sorted-set", Since: "6.2.0",
	Summary:    "Returns the union of multiple sorted sets.",
	Complexity: "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
	Handler:    func(x *cmdCtx) error { return zsetOpGeneric(x, kv.SetUnion, false) },
})

// zsetOpGeneric is ZUNION, ZINTER, ZDIFF and their STORE forms, as Redis's
// zunionInterDiffGenericCommand: numkeys, the keys (sorted sets or sets),
// then WEIGHTS and AGGREGATE (not for ZDIFF) and WITHSCORES (not when
// storing).
func zsetOpGeneric(x *cmdCtx, op kv.SetOp, store bool) error {
	numAt := 1
	if store {
		numAt = 2
	}
	args := x.args
	n, err := parseInt(args[numAt])
	if err != nil {
		return err
	}
	if n < 1 {
		return replyErr("ERR at least 1 input key is needed for '" + x.cmd.name + "' command")
	}
	if n > int64(len(args)-numAt-1) {
		return errSyntax
	}
	keys := args[numAt+1 : numAt+1+int(n)]
	// Redis looks the keys up before the options.
	for _, k := range keys {
		if _, err := x.tx.CheckType(k, kv.TypeZSet); err != nil {
			if _, err2 := x.tx.CheckType(k, kv.TypeSet); err2 != nil {
				return err
			}
		}
	}
	var weights []float64
	agg := kv.AggSum
	withScores := false
	for j := numAt + 1 + int(n); j < len(args); j++ {
		rest := len(args) - j
		a := args[j]
		switch {
		case op != kv.SetDiff && rest >= int(n)+1 && argEq(a, "weights"):
			weights = make([]float64, n)
			for i := range weights {
				j++
				w, ok := kv.ParseScore(args[j])
				if !ok {
					return replyErr("ERR weight value is not a float")
				}
				weights[i] = w
			}
		case op != kv.SetDiff && rest >= 2 && argEq(a, "aggregate"):
			j++
			switch {
			case argEq(args[j], "sum"):
				agg = kv.AggSum
			case argEq(args[j], "min"):
				agg = kv.AggMin
			case argEq(args[j], "max"):
				agg = kv.AggMax
			default:
				return errSyntax
			}
		case !store && argEq(a, "withscores"):
			withScores = true
		default:
			return errSyntax
		}
	}
	if store {
		m, err := x.tx.ZSetOpStore(op, args[1], keys, weights, agg)
		if err != nil {
			return err
		}
		x.w.Int(m)
		if m > 0 {
			serveBlocked(x, args[1])
		}
		return nil
	}
	els, err := x.tx.ZSetOp(op, keys, weights, agg)
	if err != nil {
		return err
	}
	writeZMembers(x.w, els, withScores)
	return nil
}
