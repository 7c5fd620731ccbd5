package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRange = def(cmdSpec{
	Name: "zrange", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset slow", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Returns members in a sorted set within a range of indexes.",
	Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
	Handler:    func(x *cmdCtx) error { return zrangeGeneric(x, 1, false, zrangeAuto, dirAuto) },
})

const zrangeAuto = kv.ZRangeKind(0xff)

type zrangeDir uint8

const (
	dirAuto zrangeDir = iota
	dirForward
	dirReverse
)

var (
	errNotFloatRange = replyErr("ERR min or max is not a float")
	errNotLexRange   = replyErr("ERR min or max not valid string range item")
)

// parseScoreRange parses ZRANGEBYSCORE's min and max.
func parseScoreRange(a, b []byte) (kv.ScoreBound, kv.ScoreBound, error) {
	min, ok1 := kv.ParseScoreBound(a)
	max, ok2 := kv.ParseScoreBound(b)
	if !ok1 || !ok2 {
		return min, max, errNotFloatRange
	}
	return min, max, nil
}

// zrangeGeneric is ZRANGE, ZRANGESTORE, ZRANGEBYSCORE and
// ZREVRANGEBYSCORE, as Redis's zrangeGenericCommand: the source key is at
// argStart, followed by min and max and the options.
func zrangeGeneric(x *cmdCtx, argStart int, store bool, kind kv.ZRangeKind, dir zrangeDir) error {
	args := x.args
	withScores, hasLimit := false, false
	var offset, count int64 = 0, -1
	for j := argStart + 3; j < len(args); j++ {
		a := args[j]
		switch {
		case !store && argEq(a, "withscores"):
			withScores = true
		case argEq(a, "limit") && len(args)-j-1 >= 2:
			var err error
			if offset, err = parseInt(args[j+1]); err != nil {
				return err
			}
			if count, err = parseInt(args[j+2]); err != nil {
				return err
			}
			hasLimit = true
			j += 2
		case dir == dirAuto && argEq(a, "rev"):
			dir = dirReverse
		case kind == zrangeAuto && argEq(a, "bylex"):
			kind = kv.ZByLex
		case kind == zrangeAuto && argEq(a, "byscore"):
			kind = kv.ZByScore
		default:
			return errSyntax
		}
	}
	if kind == zrangeAuto {
		kind = kv.ZByRank
	}
	if hasLimit && kind == kv.ZByRank {
		return replyErr("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	}
	if withScores && kind == kv.ZByLex {
		return replyErr("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	}
	q := kv.ZRangeSpec{Kind: kind, Rev: dir == dirReverse, Offset: offset, Count: count}
	minArg, maxArg := args[argStart+1], args[argStart+2]
	if q.Rev && kind != kv.ZByRank {
		minArg, maxArg = maxArg, minArg
	}
	var err error
	switch kind {
	case kv.ZByRank:
		if q.Start, err = parseInt(minArg); err != nil {
			return err
		}
		if q.Stop, err = parseInt(maxArg); err != nil {
			return err
		}
	case kv.ZByScore:
		if q.Min, q.Max, err = parseScoreRange(minArg, maxArg); err != nil {
			return err
		}
	case kv.ZByLex:
		var ok1, ok2 bool
		q.LexMin, ok1 = kv.ParseLexBound(minArg)
		q.LexMax, ok2 = kv.ParseLexBound(maxArg)
		if !ok1 || !ok2 {
			return errNotLexRange
		}
	}
	if store {
		n, err := x.tx.ZRangeStore(args[1], args[argStart], q)
		if err != nil {
			return err
		}
		x.w.Int(n)
		if n > 0 {
			serveBlocked(x, args[1])
		}
		return nil
	}
	els, err := x.tx.ZRange(args[argStart], q)
	if err != nil {
		return err
	}
	writeZMembers(x.w, els, withScores)
	return nil
}

// writeZMembers writes sorted set elements: members only, or with scores
// (a flat array in RESP2, pairs in RESP3).
func writeZMembers(w *Writer, els []kv.ZMember, withScores bool) {
	switch {
	case !withScores:
		w.Array(len(els))
		for _, e := range els {
			w.Bulk(e.Member)
		}
	case w.Proto() >= 3:
		w.Array(len(els))
		for _, e := range els {
			w.Array(2)
			w.Bulk(e.Member)
			w.Double(e.Score)
		}
	default:
		w.Array(2 * len(els))
		for _, e := range els {
			w.Bulk(e.Member)
			w.Double(e.Score)
		}
	}
}
