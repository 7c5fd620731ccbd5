package kv

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/storage"
)

// Sorted sets. The record holds the element count. Under the version live
// two namespaces:
//
//	'm' [member]              -> score (float64 bits, 8 bytes)
//	's' [score u64] [member]  -> empty
//
// where the score in 's' is encoded so that byte order is numeric order
// (sign bit flipped for positive numbers, all bits flipped for negative
// ones; -0 is stored as 0). Members with equal scores therefore come out in
// byte order, as in Redis's skiplist. ZSCORE is one read, ranges by score
// are one seek and a walk, ranks are a walk from the nearer end.

const (
	zsetMemberNS = 'm'
	zsetScoreNS  = 's'
)

// ZMember is a sorted set element.
type ZMember struct {
	Member []byte
	Score  float64
}

func encodeScore(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 sorts as 0
	}
	b := math.Float64bits(f)
	if b>>63 == 0 {
		return b | 1<<63
	}
	return ^b
}

func decodeScore(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// ParseScore parses a score as Redis's getDoubleFromObject: the whole
// string, no leading space, not NaN, neither overflowing nor underflowing
// to zero; inf and -inf allowed.
func ParseScore(b []byte) (float64, bool) {
	s := string(b)
	if s == "" || isCSpace(s[0]) || strings.ContainsRune(s, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false // syntax, overflow (ERANGE) or NaN
	}
	if f == 0 && hasNonZeroDigit(s) && !isHexFloat(s) {
		return 0, false // underflow to zero (ERANGE)
	}
	return f, true
}

func isHexFloat(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// ScoreBound is one end of a score range: Excl for "(x".
type ScoreBound struct {
	Value float64
	Excl  bool
}

// ParseScoreBound parses a ZRANGEBYSCORE bound as Redis's zslParseRange:
// "(" makes it exclusive, the rest goes through strtod (leading spaces
// allowed, the empty string is 0, inf allowed, NaN refused).
func ParseScoreBound(b []byte) (ScoreBound, bool) {
	var sb ScoreBound
	s := string(b)
	if strings.HasPrefix(s, "(") {
		sb.Excl = true
		s = s[1:]
	}
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if s == "" {
		return sb, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return sb, false
		}
	}
	if math.IsNaN(f) || strings.ContainsRune(s, '_') {
		return sb, false
	}
	sb.Value = f
	return sb, true
}

// LexBound is one end of a lexicographic range: Inf is -1 for "-", 1 for
// "+", 0 for "[x" or "(x" (Excl).
type LexBound struct {
	Value []byte
	Excl  bool
	Inf   int
}

// ParseLexBound parses a ZRANGEBYLEX bound: "-", "+", "[x" or "(x".
func ParseLexBound(b []byte) (LexBound, bool) {
	if len(b) == 0 {
		return LexBound{}, false
	}
	switch b[0] {
	case '-':
		if len(b) == 1 {
			return LexBound{Inf: -1}, true
		}
	case '+':
		if len(b) == 1 {
			return LexBound{Inf: 1}, true
		}
	case '[':
		return LexBound{Value: b[1:]}, true
	case '(':
		return LexBound{Value: b[1:], Excl: true}, true
	}
	return LexBound{}, false
}

func (b LexBound) geMin(m []byte) bool {
	switch b.Inf {
	case -1:
		return true
	case 1:
		return false
	}
	c := bytes.Compare(m, b.Value)
	return c > 0 || (c == 0 && !b.Excl)
}

func (b LexBound) leMax(m []byte) bool {
	switch b.Inf {
	case -1:
		return false
	case 1:
		return true
	}
	c := bytes.Compare(m, b.Value)
	return c < 0 || (c == 0 && !b.Excl)
}

func (b ScoreBound) geMin(f float64) bool { return f > b.Value || (!b.Excl && f == b.Value) }
func (b ScoreBound) leMax(f float64) bool { return f < b.Value || (!b.Excl && f == b.Value) }

// zsetState is a sorted set as read in a Tx.
type zsetState struct {
	orig     Meta
	found    bool
	version  uint64
	expireAt int64
	count    int64
	elems    int64 // element bytes (elembytes.go), as stored + this command's changes
	// known caches scores read (or written) by this command; with
	// knownAll (a sorted set this command created) a member not in it is
	// absent.
	known    map[string]zknown
	knownAll bool
}

type zknown struct {
	score float64
	ok    bool
}

func (tx *Tx) zsetFor(key []byte, read bool) (zsetState, error) {
	m, ok, err := tx.lookupColl(key, TypeZSet, read)
	if err != nil || !ok {
		return zsetState{}, err
	}
	return zsetState{orig: m, found: true, version: m.Version, expireAt: m.ExpireAt, count: int64(m.Count()), elems: m.ElemBytes}, nil
}

// zsetSave stores the record after the elements changed; an empty sorted
// set is deleted with `del`.
func (tx *Tx) zsetSave(key []byte, z *zsetState) error {
	if z.count == 0 {
		if z.found {
			orig := z.orig
			*z = zsetState{}
			return tx.deleteColl(key, orig)
		}
		return nil
	}
	nm := Meta{Type: TypeZSet, Version: z.version, ExpireAt: z.expireAt}
	nm.SetCount(uint64(z.count))
	var err error
	if nm.ElemBytes, err = tx.savedElemBytes(z.orig, z.found, z.elems, nm); err != nil {
		return err
	}
	if err := tx.PutMeta(key, z.orig, z.found, nm); err != nil {
		return err
	}
	z.orig, z.found = nm, true
	return nil
}

func (tx *Tx) zsetScore(z *zsetState, member []byte) (float64, bool, error) {
	if z.version == 0 {
		return 0, false, nil
	}
	if k, ok := z.known[string(member)]; ok || z.knownAll {
		return k.score, k.ok, nil
	}
	v, err := tx.elems(z.version).Get(tx.elemKey(z.version, []byte{zsetMemberNS}, member))
	if errors.Is(err, storage.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if len(v) != 8 {
		return 0, false, fmt.Errorf("%w: sorted set member record", ErrCorrupt)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(v)), true, nil
}

func (tx *Tx) zsetScoreKey(z *zsetState, score float64, member []byte) []byte {
	return tx.elemKey(z.version, []byte{zsetScoreNS}, u64(encodeScore(score)), member)
}

// zsetPut writes member with score; had/old describe it before.
func (tx *Tx) zsetPut(z *zsetState, member []byte, score float64, had bool, old float64) error {
	if z.version == 0 {
		z.version = tx.NewVersion()
		z.known, z.knownAll = make(map[string]zknown), true
	}
	if z.known != nil {
		z.known[string(member)] = zknown{score, true}
	}
	b := tx.indexedBatch()
	if had {
		if err := b.Delete(tx.zsetScoreKey(z, old, member)); err != nil {
			return err
		}
	} else {
		z.count++
		z.elems += int64(len(member)) + zsetScoreBytes
	}
	if err := b.Set(tx.zsetScoreKey(z, score, member), nil); err != nil {
		return err
	}
	return b.Set(tx.elemKey(z.version, []byte{zsetMemberNS}, member), u64(math.Float64bits(score)))
}

func (tx *Tx) zsetDel(z *zsetState, member []byte, score float64) error {
	b := tx.indexedBatch()
	if err := b.Delete(tx.zsetScoreKey(z, score, member)); err != nil {
		return err
	}
	if z.known != nil {
		z.known[string(member)] = zknown{}
	}
	z.count--
	z.elems -= int64(len(member)) + zsetScoreBytes
	return b.Delete(tx.elemKey(z.version, []byte{zsetMemberNS}, member))
}

// zsetIter iterates the elements of z in score order.
type zsetIter struct {
	it *storage.Iter
	lo []byte // the prefix of the score namespace
}

func (tx *Tx) zsetIter(z *zsetState) (*zsetIter, error) {
	lo := tx.elemKey(z.version, []byte{zsetScoreNS})
	it, err := tx.elems(z.version).NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	return &zsetIter{it: it, lo: lo}, nil
}

func (zi *zsetIter) cur() ZMember {
	k := zi.it.Key()[len(zi.lo):]
	return ZMember{Member: append([]byte{}, k[8:]...), Score: decodeScore(binary.BigEndian.Uint64(k[:8]))}
}

// seekScore moves to the first element whose score is at least f.
func (zi *zsetIter) seekScore(f float64) bool {
	return zi.it.SeekGE(binary.BigEndian.AppendUint64(append([]byte{}, zi.lo...), encodeScore(f)))
}

// seekScoreLE moves to the last element whose score is at most f.
func (zi *zsetIter) seekScoreLE(f float64) bool {
	k := binary.BigEndian.AppendUint64(append([]byte{}, zi.lo...), encodeScore(f))
	return zi.it.SeekLT(storage.PrefixEnd(k))
}

// zsetPrefetch reads the scores of many members at once.
func (tx *Tx) zsetPrefetch(z *zsetState, members [][]byte) error {
	if !z.found || len(members) < prefetchMin {
		return nil
	}
	got, err := tx.prefetch(z.version, []byte{zsetMemberNS}, members)
	if err != nil {
		return err
	}
	z.known = make(map[string]zknown, len(members))
	for _, m := range members {
		var k zknown
		if v, ok := got[string(m)]; ok && len(v) == 8 {
			k = zknown{math.Float64frombits(binary.BigEndian.Uint64(v)), true}
		}
		z.known[string(m)] = k
	}
	return nil
}

// ZAddOptions are ZADD's flags.
type ZAddOptions struct {
	NX, XX, GT, LT bool
	Incr           bool // add the score to the current one (ZINCRBY)
}

// ZAddResult is what ZADD did.
type ZAddResult struct {
	Added, Updated int64
	// Score is the new score of the (single) element with Incr; ok is
	// false when the flags left it alone.
	Score   float64
	ScoreOK bool
}

// ZAdd adds or updates elements (scores[i] for members[i]) with ZADD's
// rules. The event is `zadd` (`zincr` with Incr) when something changed.
// ErrNaNScore is returned when an increment gives NaN; nothing is written
// then (the caller rolls back the command, as Redis writes nothing when
// the first element fails).
func (tx *Tx) ZAdd(key []byte, o ZAddOptions, scores []float64, members [][]byte) (ZAddResult, error) {
	var r ZAddResult
	z, err := tx.zsetFor(key, false)
	if err != nil {
		return r, err
	}
	if !z.found && o.XX {
		return r, nil
	}
	if err := tx.zsetPrefetch(&z, members); err != nil {
		return r, err
	}
	for i, m := range members {
		score := scores[i]
		cur, had, err := tx.zsetScore(&z, m)
		if err != nil {
			return r, err
		}
		if had {
			if o.NX {
				continue
			}
			if o.Incr {
				score += cur
				if math.IsNaN(score) {
					return r, ErrNaNScore
				}
			}
			if (o.LT && score >= cur) || (o.GT && score <= cur) {
				continue
			}
			r.Score, r.ScoreOK = score, true
			if score != cur {
				if err := tx.zsetPut(&z, m, score, true, cur); err != nil {
					return r, err
				}
				r.Updated++
			}
			continue
		}
		if o.XX {
			continue
		}
		if err := tx.zsetPut(&z, m, score, false, 0); err != nil {
			return r, err
		}
		r.Score, r.ScoreOK = score, true
		r.Added++
	}
	if r.Added+r.Updated > 0 {
		if err := tx.zsetSave(key, &z); err != nil {
			return r, err
		}
		event := "zadd"
		if o.Incr {
			event = "zincr"
		}
		tx.notify(ClassZSet, event, key)
	}
	return r, nil
}

// ZRem removes members and returns how many were there. Events: `zrem`,
// then `del` when emptied.
func (tx *Tx) ZRem(key []byte, members [][]byte) (int64, error) {
	z, err := tx.zsetFor(key, false)
	if err != nil || !z.found {
		return 0, err
	}
	if err := tx.zsetPrefetch(&z, members); err != nil {
		return 0, err
	}
	var n int64
	for _, m := range members {
		s, ok, err := tx.zsetScore(&z, m)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		if err := tx.zsetDel(&z, m, s); err != nil {
			return 0, err
		}
		n++
		if z.count == 0 {
			break
		}
	}
	if n == 0 {
		return 0, nil
	}
	tx.notify(ClassZSet, "zrem", key)
	return n, tx.zsetSave(key, &z)
}

// ZScore returns the score of member; ok is false when missing.
func (tx *Tx) ZScore(key, member []byte) (float64, bool, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil {
		return 0, false, err
	}
	return tx.zsetScore(&z, member)
}

// ZMScore returns the scores of members; ok[i] is false for a missing one.
func (tx *Tx) ZMScore(key []byte, members [][]byte) ([]float64, []bool, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil {
		return nil, nil, err
	}
	scores := make([]float64, len(members))
	oks := make([]bool, len(members))
	for i, m := range members {
		if scores[i], oks[i], err = tx.zsetScore(&z, m); err != nil {
			return nil, nil, err
		}
	}
	return scores, oks, nil
}

// ZCard returns the number of elements.
func (tx *Tx) ZCard(key []byte) (int64, error) {
	z, err := tx.zsetFor(key, true)
	return z.count, err
}

// ZRangeKind is how ZRANGE reads its bounds.
type ZRangeKind uint8

// The ZRANGE kinds.
const (
	ZByRank ZRangeKind = iota
	ZByScore
	ZByLex
)

// ZRangeSpec is a ZRANGE query. Start and Stop are ranks (ZByRank, negative
// from the end); Min and Max score bounds (ZByScore) or LexMin and LexMax
// (ZByLex), always given low to high. Rev walks from the highest. Offset
// and Count apply to ZByScore and ZByLex (Count < 0: no limit).
type ZRangeSpec struct {
	Kind           ZRangeKind
	Rev            bool
	Start, Stop    int64
	Min, Max       ScoreBound
	LexMin, LexMax LexBound
	Offset, Count  int64
}

// zsetRange runs a range query on z.
func (tx *Tx) zsetRange(z *zsetState, q ZRangeSpec) ([]ZMember, error) {
	if !z.found {
		return []ZMember{}, nil
	}
	zi, err := tx.zsetIter(z)
	if err != nil {
		return nil, err
	}
	defer zi.it.Close()
	switch q.Kind {
	case ZByRank:
		return zi.rankRange(z.count, q)
	case ZByScore, ZByLex:
		if q.Offset < 0 || (q.Offset > 0 && q.Offset >= z.count) {
			return []ZMember{}, nil
		}
		return zi.boundRange(q)
	}
	return []ZMember{}, nil
}

// rankRange returns the elements of ranks [q.Start, q.Stop] (from the end
// when q.Rev) of a sorted set of count elements, walking from the nearer
// end.
func (zi *zsetIter) rankRange(count int64, q ZRangeSpec) ([]ZMember, error) {
	out := []ZMember{}
	it := zi.it
	from, to, ok := rangeBounds(q.Start, q.Stop, count)
	if !ok {
		return out, nil
	}
	n := to - from + 1
	if q.Rev {
		from = count - 1 - to
	}
	if from <= count-from-n {
		ok := it.First()
		for i := int64(0); ok && i < from; i++ {
			ok = it.Next()
		}
		for ; ok && int64(len(out)) < n; ok = it.Next() {
			out = append(out, zi.cur())
		}
	} else {
		ok := it.Last()
		for i := int64(0); ok && i < count-from-n; i++ {
			ok = it.Prev()
		}
		for ; ok && int64(len(out)) < n; ok = it.Prev() {
			out = append(out, zi.cur())
		}
		slices.Reverse(out)
	}
	if q.Rev {
		slices.Reverse(out)
	}
	return out, it.Error()
}

// boundRange returns the elements between q's score or lex bounds, in
// order (reversed when q.Rev), past q.Offset and at most q.Count of them
// when it is not negative.
func (zi *zsetIter) boundRange(q ZRangeSpec) ([]ZMember, error) {
	out := []ZMember{}
	it := zi.it
	ok, inStart, inEnd := zi.seekBound(q)
	step := it.Next
	if q.Rev {
		step = it.Prev
	}
	for ok && !inStart(zi.cur()) {
		ok = step()
	}
	for i := int64(0); ok && i < q.Offset; i++ {
		ok = step()
	}
	for ; ok && (q.Count < 0 || int64(len(out)) < q.Count); ok = step() {
		m := zi.cur()
		if !inEnd(m) {
			break
		}
		out = append(out, m)
	}
	return out, it.Error()
}

// seekBound positions the iterator near the bound a walk of q starts from
// and returns whether it is on an element, and the tests that an element
// is past the starting bound and not past the ending one.
func (zi *zsetIter) seekBound(q ZRangeSpec) (ok bool, inStart, inEnd func(ZMember) bool) {
	switch {
	case q.Kind == ZByScore && q.Rev:
		return zi.seekScoreLE(q.Max.Value),
			func(m ZMember) bool { return q.Max.leMax(m.Score) },
			func(m ZMember) bool { return q.Min.geMin(m.Score) }
	case q.Kind == ZByScore:
		return zi.seekScore(q.Min.Value),
			func(m ZMember) bool { return q.Min.geMin(m.Score) },
			func(m ZMember) bool { return q.Max.leMax(m.Score) }
	case q.Rev:
		return zi.it.Last(),
			func(m ZMember) bool { return q.LexMax.leMax(m.Member) },
			func(m ZMember) bool { return q.LexMin.geMin(m.Member) }
	default:
		return zi.it.First(),
			func(m ZMember) bool { return q.LexMin.geMin(m.Member) },
			func(m ZMember) bool { return q.LexMax.leMax(m.Member) }
	}
}

// ZRange returns the elements of the sorted set at key selected by q.
func (tx *Tx) ZRange(key []byte, q ZRangeSpec) ([]ZMember, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil {
		return nil, err
	}
	return tx.zsetRange(&z, q)
}

// ZRangeStore stores the elements selected by q in dst, replacing it and
// its expiry, and returns their number. An empty result deletes dst
// (`del`); otherwise the event is `zrangestore`.
func (tx *Tx) ZRangeStore(dst, src []byte, q ZRangeSpec) (int64, error) {
	z, err := tx.zsetFor(src, true)
	if err != nil {
		return 0, err
	}
	els, err := tx.zsetRange(&z, q)
	if err != nil {
		return 0, err
	}
	return int64(len(els)), tx.storeZSet(dst, els, "zrangestore")
}

// ZCount returns the number of elements with a score in [min, max].
func (tx *Tx) ZCount(key []byte, min, max ScoreBound) (int64, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil {
		return 0, err
	}
	els, err := tx.zsetRange(&z, ZRangeSpec{Kind: ZByScore, Min: min, Max: max, Count: -1})
	return int64(len(els)), err
}

// ZLexCount returns the number of elements whose member lies between min
// and max (ZLEXCOUNT; meant for sorted sets whose scores are all equal).
func (tx *Tx) ZLexCount(key []byte, min, max LexBound) (int64, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil {
		return 0, err
	}
	els, err := tx.zsetRange(&z, ZRangeSpec{Kind: ZByLex, LexMin: min, LexMax: max, Count: -1})
	return int64(len(els)), err
}

// ZRank returns the rank of member (0 for the lowest score, or the highest
// with rev) and its score; ok is false when missing.
func (tx *Tx) ZRank(key, member []byte, rev bool) (int64, float64, bool, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil {
		return 0, 0, false, err
	}
	score, ok, err := tx.zsetScore(&z, member)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	lo := tx.elemKey(z.version, []byte{zsetScoreNS})
	target := tx.zsetScoreKey(&z, score, member)
	// The rank is the number of elements before member: a walk.
	var n int64
	it, err := tx.reader().NewIter(lo, target)
	if err != nil {
		return 0, 0, false, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		return 0, 0, false, err
	}
	if rev {
		n = z.count - 1 - n
	}
	return n, score, true, nil
}

// ZPop removes and returns up to n elements with the lowest scores (the
// highest with max). Events: `zpopmin` or `zpopmax`, then `del` when
// emptied.
func (tx *Tx) ZPop(key []byte, max bool, n int64) ([]ZMember, error) {
	z, err := tx.zsetFor(key, false)
	if err != nil || !z.found || n <= 0 {
		return []ZMember{}, err
	}
	return tx.zsetPop(key, &z, max, n)
}

// ZPopFirst pops up to n elements (n > 0) from the first sorted set among
// keys, in order, as ZMPOP and the blocking pops do: missing keys are
// skipped, a key of another type met before a sorted set is an error.
// ok is false when no key holds a sorted set. Events as ZPop.
func (tx *Tx) ZPopFirst(keys [][]byte, max bool, n int64) (key []byte, els []ZMember, ok bool, err error) {
	for _, k := range keys {
		z, err := tx.zsetFor(k, false)
		if err != nil {
			return nil, nil, false, err
		}
		if !z.found {
			continue
		}
		els, err := tx.zsetPop(k, &z, max, n)
		if err != nil {
			return nil, nil, false, err
		}
		return k, els, true, nil
	}
	return nil, nil, false, nil
}

// zsetPop removes and returns up to n elements from one end of z.
func (tx *Tx) zsetPop(key []byte, z *zsetState, max bool, n int64) ([]ZMember, error) {
	zi, err := tx.zsetIter(z)
	if err != nil {
		return nil, err
	}
	var out []ZMember
	ok, step := zi.it.First(), zi.it.Next
	if max {
		ok, step = zi.it.Last(), zi.it.Prev
	}
	for ; ok && int64(len(out)) < n; ok = step() {
		out = append(out, zi.cur())
	}
	if err := zi.it.Close(); err != nil {
		return nil, err
	}
	for _, m := range out {
		if err := tx.zsetDel(z, m.Member, m.Score); err != nil {
			return nil, err
		}
	}
	event := "zpopmin"
	if max {
		event = "zpopmax"
	}
	tx.notify(ClassZSet, event, key)
	return out, tx.zsetSave(key, z)
}

// ZRemRange removes the elements selected by q (ZByRank or ZByScore) and
// returns their number. Events: `zremrangebyrank` or `zremrangebyscore`
// (`zremrangebylex` for ZByLex), then `del` when emptied.
func (tx *Tx) ZRemRange(key []byte, q ZRangeSpec) (int64, error) {
	z, err := tx.zsetFor(key, false)
	if err != nil || !z.found {
		return 0, err
	}
	q.Rev, q.Offset, q.Count = false, 0, -1
	els, err := tx.zsetRange(&z, q)
	if err != nil || len(els) == 0 {
		return 0, err
	}
	for _, m := range els {
		if err := tx.zsetDel(&z, m.Member, m.Score); err != nil {
			return 0, err
		}
	}
	event := [...]string{ZByRank: "zremrangebyrank", ZByScore: "zremrangebyscore", ZByLex: "zremrangebylex"}[q.Kind]
	tx.notify(ClassZSet, event, key)
	return int64(len(els)), tx.zsetSave(key, &z)
}

// Aggregate says how ZUNION and ZINTER combine the scores of an element.
type Aggregate uint8

// The aggregates.
const (
	AggSum Aggregate = iota
	AggMin
	AggMax
)

func aggregate(target *float64, v float64, a Aggregate) {
	switch a {
	case AggSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0
		}
	case AggMin:
		if v < *target {
			*target = v
		}
	case AggMax:
		if v > *target {
			*target = v
		}
	}
}

// zsource is one input of ZUNION and friends: a sorted set or a set
// (whose members score 1).
type zsource struct {
	found   bool
	members map[string]float64
}

func (tx *Tx) zsourceFor(key []byte) (zsource, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok {
		return zsource{}, err
	}
	return tx.zsourceOf(m)
}

// zsourceOf reads the members of the sorted set or set m.
func (tx *Tx) zsourceOf(m Meta) (zsource, error) {
	src := zsource{found: true, members: make(map[string]float64)}
	switch m.Type {
	case TypeZSet:
		keys, vals, err := tx.collMembers(m.Version, []byte{zsetMemberNS})
		if err != nil {
			return zsource{}, err
		}
		for i, k := range keys {
			src.members[string(k)] = math.Float64frombits(binary.BigEndian.Uint64(vals[i]))
		}
	case TypeSet:
		keys, _, err := tx.collMembers(m.Version, nil)
		if err != nil {
			return zsource{}, err
		}
		for _, k := range keys {
			src.members[string(k)] = 1
		}
	default:
		return zsource{}, ErrWrongType
	}
	return src, nil
}

// ZSetOp computes the union, intersection or difference of the sorted
// sets (or sets) at keys with weights (nil: all 1; ignored by SetDiff) and
// agg, and returns the result in score order.
func (tx *Tx) ZSetOp(op SetOp, keys [][]byte, weights []float64, agg Aggregate) ([]ZMember, error) {
	srcs := make([]zsource, len(keys))
	for i, k := range keys {
		s, err := tx.zsourceFor(k)
		if err != nil {
			return nil, err
		}
		srcs[i] = s
	}
	w := func(i int) float64 {
		if weights == nil || op == SetDiff {
			return 1
		}
		return weights[i]
	}
	res := make(map[string]float64)
	switch op {
	case SetUnion:
		for i, s := range srcs {
			for m, sc := range s.members {
				v := w(i) * sc
				if math.IsNaN(v) {
					v = 0
				}
				if cur, ok := res[m]; ok {
					aggregate(&cur, v, agg)
					res[m] = cur
				} else {
					res[m] = v
				}
			}
		}
	case SetInter:
		if len(srcs) == 0 {
			break
		}
	members:
		for m, sc := range srcs[0].members {
			score := w(0) * sc
			if math.IsNaN(score) {
				score = 0
			}
			for j := 1; j < len(srcs); j++ {
				v, ok := srcs[j].members[m]
				if !ok {
					continue members
				}
				aggregate(&score, v*w(j), agg)
			}
			res[m] = score
		}
	case SetDiff:
		if len(srcs) == 0 {
			break
		}
	diff:
		for m, sc := range srcs[0].members {
			for j := 1; j < len(srcs); j++ {
				if _, ok := srcs[j].members[m]; ok {
					continue diff
				}
			}
			res[m] = sc
		}
	}
	out := make([]ZMember, 0, len(res))
	for m, s := range res {
		out = append(out, ZMember{Member: []byte(m), Score: s})
	}
	sortZMembers(out)
	return out, nil
}

// ZInterCard returns the size of the intersection of the sorted sets (or
// sets) at keys, as ZINTERCARD: every key is looked up and type-checked
// first; with limit > 0 the count stops at limit.
func (tx *Tx) ZInterCard(keys [][]byte, limit int64) (int64, error) {
	metas := make([]Meta, len(keys))
	missing := false
	for i, k := range keys {
		m, ok, err := tx.LookupRead(k)
		if err != nil {
			return 0, err
		}
		if !ok {
			missing = true
			continue
		}
		if m.Type != TypeZSet && m.Type != TypeSet {
			return 0, ErrWrongType
		}
		metas[i] = m
	}
	if missing {
		return 0, nil
	}
	// Walk the smallest input and probe the others.
	slices.SortStableFunc(metas, func(a, b Meta) int { return cmp.Compare(a.Count(), b.Count()) })
	srcs := make([]zsource, len(metas))
	for i, m := range metas {
		s, err := tx.zsourceOf(m)
		if err != nil {
			return 0, err
		}
		srcs[i] = s
	}
	var n int64
members:
	for m := range srcs[0].members {
		for _, s := range srcs[1:] {
			if _, ok := s.members[m]; !ok {
				continue members
			}
		}
		n++
		if limit > 0 && n >= limit {
			break
		}
	}
	return n, nil
}

func sortZMembers(els []ZMember) {
	slices.SortFunc(els, func(a, b ZMember) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return bytes.Compare(a.Member, b.Member)
	})
}

var zsetStoreEvents = [...]string{SetUnion: "zunionstore", SetInter: "zinterstore", SetDiff: "zdiffstore"}

// ZSetOpStore stores the result of ZSetOp in dst, replacing it and its
// expiry, and returns its size. An empty result deletes dst (`del`);
// otherwise the event is `zunionstore`, `zinterstore` or `zdiffstore`.
func (tx *Tx) ZSetOpStore(op SetOp, dst []byte, keys [][]byte, weights []float64, agg Aggregate) (int64, error) {
	els, err := tx.ZSetOp(op, keys, weights, agg)
	if err != nil {
		return 0, err
	}
	return int64(len(els)), tx.storeZSet(dst, els, zsetStoreEvents[op])
}

// storeZSet replaces dst with a sorted set of els (distinct members).
func (tx *Tx) storeZSet(dst []byte, els []ZMember, event string) error {
	old, found, err := tx.Lookup(dst)
	if err != nil {
		return err
	}
	if len(els) == 0 {
		if found {
			return tx.deleteColl(dst, old)
		}
		return nil
	}
	z := zsetState{version: tx.NewVersion()}
	for _, m := range els {
		if err := tx.zsetPut(&z, m.Member, m.Score, false, 0); err != nil {
			return err
		}
	}
	nm := Meta{Type: TypeZSet, Version: z.version, ElemBytes: z.elems}
	nm.SetCount(uint64(z.count))
	if err := tx.PutMeta(dst, old, found, nm); err != nil {
		return err
	}
	tx.notify(ClassZSet, event, dst)
	return nil
}

// ZScan returns a page of the elements of the sorted set at key (in member
// order) and the next cursor (0 when the walk is complete).
func (tx *Tx) ZScan(key []byte, cursor uint64, o CollScanOptions) (uint64, []ZMember, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil || !z.found {
		return 0, nil, err
	}
	var out []ZMember
	next, err := tx.collScan(z.version, []byte{zsetMemberNS}, cursor, o.Count, func(k, v []byte) error {
		if o.Match != nil && !glob.Match(o.Match, k, false) {
			return nil
		}
		if len(v) != 8 {
			return fmt.Errorf("%w: sorted set member record", ErrCorrupt)
		}
		out = append(out, ZMember{Member: append([]byte{}, k...), Score: math.Float64frombits(binary.BigEndian.Uint64(v))})
		return nil
	})
	return next, out, err
}
