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
	o, err := parseZRangeOptions(args[argStart+3:], store, kind, dir)
	if err != nil {
		return err
	}
	q := kv.ZRangeSpec{Kind: o.kind, Rev: o.dir == dirReverse, Offset: o.offset, Count: o.count}
	if err := parseZRangeBounds(&q, args[argStart+1], args[argStart+2]); err != nil {
		return err
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
	writeZMembers(x.w, els, o.withScores)
	return nil
}

// zrangeOptions are the options after a range's min and max.
type zrangeOptions struct {
	withScores    bool
	offset, count int64 // LIMIT; count -1 for none
	kind          kv.ZRangeKind
	dir           zrangeDir
}

// parseZRangeOptions parses WITHSCORES (not for a store), LIMIT, REV,
// BYLEX and BYSCORE (each only when the command's kind or direction is not
// fixed), with Redis's errors for the combinations it refuses.
func parseZRangeOptions(opts [][]byte, store bool, kind kv.ZRangeKind, dir zrangeDir) (zrangeOptions, error) {
	o := zrangeOptions{count: -1, kind: kind, dir: dir}
	hasLimit := false
	for j := 0; j < len(opts); j++ {
		a := opts[j]
		switch {
		case !store && argEq(a, "withscores"):
			o.withScores = true
		case argEq(a, "limit") && len(opts)-j-1 >= 2:
			var err error
			if o.offset, err = parseInt(opts[j+1]); err != nil {
				return o, err
			}
			if o.count, err = parseInt(opts[j+2]); err != nil {
				return o, err
			}
			hasLimit = true
			j += 2
		case dir == dirAuto && argEq(a, "rev"):
			o.dir = dirReverse
		case kind == zrangeAuto && argEq(a, "bylex"):
			o.kind = kv.ZByLex
		case kind == zrangeAuto && argEq(a, "byscore"):
			o.kind = kv.ZByScore
		default:
			return o, errSyntax
		}
	}
	if o.kind == zrangeAuto {
		o.kind = kv.ZByRank
	}
	if hasLimit && o.kind == kv.ZByRank {
		return o, replyErr("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	}
	if o.withScores && o.kind == kv.ZByLex {
		return o, replyErr("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	}
	return o, nil
}

// parseZRangeBounds parses min and max into q as ranks, scores or lex
// bounds by q's kind; a reversed score or lex range gives max first.
func parseZRangeBounds(q *kv.ZRangeSpec, minArg, maxArg []byte) error {
	if q.Rev && q.Kind != kv.ZByRank {
		minArg, maxArg = maxArg, minArg
	}
	var err error
	switch q.Kind {
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
