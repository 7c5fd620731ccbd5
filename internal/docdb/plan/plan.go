package plan

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/keycodec"
)

// The planner picks one access path for a query: a collection scan, or a
// scan of one index within bounds computed from the filter's predicates
// (query.Filter.Predicates), optionally in the order a sort asks for.
// Whatever it picks, every fetched document is matched against the whole
// filter again, so bounds only need to be a superset of the matching keys.
//
// Candidate indexes are scored: a unique index fully bound by equality
// wins, then the longest equality prefix, then a range on the next field,
// then providing the sort order. Hidden indexes are never chosen, nor can
// they be hinted (as in MongoDB). Sparse indexes are
// used only when a predicate excludes null on one of their fields, and
// partial indexes only when the filter's predicates imply every predicate
// of the index filter.

// maxScanRanges bounds the key ranges of one index scan (the product of
// $in lists over a compound key); past it the planner uses fewer fields.
const maxScanRanges = 1000

// bound is one interval of one index field: the byte range of the field's
// encodings [lo, hi) (hi nil: to the end of the field's space) and the
// value-level interval for explain.
type bound struct {
	lo, hi   []byte
	low      any
	high     any
	lowIncl  bool
	highIncl bool
	point    bool
}

// fieldBounds are the merged intervals of one index field, in index order.
type fieldBounds struct {
	all    bool
	bounds []bound
}

// Plan is the chosen access path of one query.
type Plan struct {
	Meta   *catalog.CollMeta
	Filter *match.Filter
	Sort   *query.Sort
	// Index is the scanned index; nil for a collection scan.
	Index *catalog.IndexMeta
	// fields are the bounds of every field of ix (all fields; those past
	// the usable prefix are full).
	fields []fieldBounds
	// ranges are the key ranges to scan, relative to the index's (or the
	// documents') key prefix, ascending.
	ranges [][2][]byte
	// reverse scans backwards.
	reverse bool
	// SortProvided says the scan order satisfies sort.
	SortProvided bool
	// dedupe is set for multikey indexes, whose scans can meet a document
	// more than once.
	dedupe bool
	// natural is set for a collection scan of a capped collection, which
	// walks its insertion order (natural.go); after is then the sequence
	// the scan starts past.
	natural bool
	after   uint64
}

// Request is what the planner needs to know about a query.
type Request struct {
	Filter *match.Filter
	Sort   *query.Sort
	Hint   any
	// Natural is +1/-1 when the sort is {$natural: ±1}.
	Natural int
}

// Choose plans a query on meta.
func Choose(meta *catalog.CollMeta, req Request) (*Plan, error) {
	var preds []query.Predicate
	if req.Filter != nil {
		preds = req.Filter.Q.Predicates()
	}
	if req.Hint != nil {
		return hintedPlan(meta, req, preds)
	}
	if req.Natural != 0 {
		return collScan(meta, req, req.Natural < 0), nil
	}
	var best *Plan
	bestScore := 0
	for _, ix := range meta.Indexes {
		if ix.Hidden {
			continue
		}
		p, score, ok := indexPlan(meta, ix, req, preds)
		if !ok {
			continue
		}
		if score > bestScore {
			best, bestScore = p, score
		}
	}
	if best == nil {
		return collScan(meta, req, false), nil
	}
	return best, nil
}

// collScan returns a collection scan plan.
func collScan(meta *catalog.CollMeta, req Request, reverse bool) *Plan {
	_, capped := meta.Capped()
	return &Plan{Meta: meta, Filter: req.Filter, Sort: req.Sort, reverse: reverse, natural: capped}
}

// hintedPlan honours a hint: an index name, a key pattern or {$natural}.
func hintedPlan(meta *catalog.CollMeta, req Request, preds []query.Predicate) (*Plan, error) {
	var ix *catalog.IndexMeta
	switch h := req.Hint.(type) {
	case string:
		ix = meta.Index(h)
	case bson.D:
		if len(h) == 1 && h[0].Key == "$natural" {
			return collScan(meta, req, catalog.KeyDirection(h[0].Value) < 0), nil
		}
		for _, cand := range meta.Indexes {
			if catalog.SameDoc(cand.Key, h) {
				ix = cand
				break
			}
		}
	default:
		return nil, mongoerr.New(mongoerr.FailedToParse, "hint must be a string or an object")
	}
	if ix == nil || ix.Hidden {
		return nil, badHint(meta, req)
	}
	p, _, ok := indexPlan(meta, ix, req, preds)
	if !ok {
		if ix.Partial != nil {
			return nil, badHint(meta, req)
		}
		// A hinted index with no usable predicate is scanned whole.
		p = fullIndexPlan(meta, ix, req)
	}
	return p, nil
}

// badHint is mongod's error for a hint it cannot use.
func badHint(meta *catalog.CollMeta, req Request) error {
	var filt, srt bson.D
	if req.Filter != nil {
		filt = req.Filter.Q.Spec()
	}
	if req.Sort != nil {
		for _, f := range req.Sort.Fields() {
			dir := int32(1)
			if f.Descending {
				dir = -1
			}
			srt = append(srt, bson.E{Key: f.Path, Value: dir})
		}
	}
	if filt == nil {
		filt = bson.D{}
	}
	if srt == nil {
		srt = bson.D{}
	}
	return mongoerr.Newf(mongoerr.BadValue,
		"error processing query: ns=%s.%s Tree: %s\nSort: %s\nProj: {}\n planner returned error :: caused by :: hint provided does not correspond to an existing index",
		meta.DB, meta.Name, aggregate.FormatValue(filt), aggregate.FormatValue(srt))
}

// fullIndexPlan scans all of ix.
func fullIndexPlan(meta *catalog.CollMeta, ix *catalog.IndexMeta, req Request) *Plan {
	p := &Plan{Meta: meta, Filter: req.Filter, Sort: req.Sort, Index: ix, dedupe: ix.Multikey}
	for range ix.Fields {
		p.fields = append(p.fields, fieldBounds{all: true})
	}
	p.ranges = [][2][]byte{{nil, nil}}
	p.SortProvided, p.reverse = providesSort(ix, p.fields, req.Sort)
	return p
}

// indexPlan computes the plan of scanning ix for the query, with its score;
// ok is false when ix cannot (or should not) answer the query.
func indexPlan(meta *catalog.CollMeta, ix *catalog.IndexMeta, req Request, preds []query.Predicate) (*Plan, int, bool) {
	if !collation.Equal(req.Filter.Collation(), ix.Collation) {
		// The filter's predicates compare strings (or collation keys)
		// another way than the index's entries: no bounds come from them.
		preds = nil
	}
	if ix.Partial != nil && !impliesPartial(preds, ix.Partial) {
		return nil, 0, false
	}
	fields := make([]fieldBounds, len(ix.Fields))
	eqPrefix := 0
	prefixOpen := true
	constrained := false
	nullFree := false
	for i, f := range ix.Fields {
		fb, ok := boundsFor(f, preds, ix.Multikey)
		if !ok {
			fields[i] = fieldBounds{all: true}
			prefixOpen = false
			continue
		}
		if !fb.includesNull() {
			nullFree = true
		}
		if !prefixOpen {
			// Bounds past the prefix are not used for the scan; they only
			// inform sparse eligibility.
			fields[i] = fieldBounds{all: true}
			continue
		}
		fields[i] = fb
		constrained = true
		if fb.points() {
			eqPrefix++
		} else {
			prefixOpen = false
		}
	}
	if ix.Sparse && !nullFree {
		return nil, 0, false
	}
	sortOK, reverse := providesSort(ix, fields, req.Sort)
	if !constrained && !(sortOK && req.Sort != nil && !req.Sort.Empty()) {
		return nil, 0, false
	}
	if ix.Sparse && !constrained {
		return nil, 0, false
	}
	ranges, used := scanRanges(fields)
	if used < len(fields) {
		for i := used; i < len(fields); i++ {
			fields[i] = fieldBounds{all: true}
		}
	}
	score := 1
	if constrained {
		score += 10 + 10*eqPrefix
		if eqPrefix < len(fields) && !fields[eqPrefix].all {
			score += 5
		}
		if ix.Unique && eqPrefix == len(ix.Fields) && len(ranges) == 1 {
			score += 1000
		}
	}
	if sortOK && req.Sort != nil && !req.Sort.Empty() {
		score += 3
	}
	// Prefer the shorter key among equals (fewer bytes per entry).
	score = score*100 - len(ix.Fields)
	return &Plan{
		Meta: meta, Filter: req.Filter, Sort: req.Sort, Index: ix, fields: fields,
		ranges: ranges, reverse: reverse, SortProvided: sortOK, dedupe: ix.Multikey,
	}, score, true
}

// boundsFor merges the intervals the predicates put on field f; ok is false
// when no predicate constrains it. On a multikey index the intervals of
// different predicates may not be intersected, so only the most selective
// predicate is used.
func boundsFor(f catalog.KeyField, preds []query.Predicate, multikey bool) (fieldBounds, bool) {
	var sets [][]bound
	for _, p := range preds {
		if p.Path != f.Path || !usableForBounds(p) {
			continue
		}
		sets = append(sets, encodeIntervals(p.Intervals(), f.Desc))
	}
	if len(sets) == 0 {
		return fieldBounds{}, false
	}
	if multikey {
		best := sets[0]
		for _, s := range sets[1:] {
			if selectivity(s) < selectivity(best) {
				best = s
			}
		}
		return fieldBounds{bounds: best}, true
	}
	cur := sets[0]
	for _, s := range sets[1:] {
		cur = intersect(cur, s)
	}
	return fieldBounds{bounds: cur}, true
}

// usableForBounds leaves out comparisons against an array: an array field
// is indexed by its elements, while $lt/$lte/$gt/$gte compare the whole
// array too, so no index range holds all the matches.
func usableForBounds(p query.Predicate) bool {
	switch p.Op {
	case "$gt", "$gte", "$lt", "$lte":
		_, isArray := p.Value.(bson.A)
		return !isArray
	}
	return true
}

// selectivity ranks a bound set: points are the most selective.
func selectivity(s []bound) int {
	allPoints := true
	for _, b := range s {
		if !b.point {
			allPoints = false
		}
	}
	if allPoints {
		return len(s)
	}
	return 1000 + len(s)
}

// encodeIntervals turns value intervals into sorted, merged byte ranges of
// one field's encoding.
func encodeIntervals(ivs []query.Interval, desc bool) []bound {
	var out []bound
	for _, iv := range ivs {
		b, ok := encodeInterval(iv, desc)
		if ok {
			out = append(out, b)
		}
	}
	return mergeBounds(out)
}

// encodeInterval encodes one interval; ok is false when it cannot be
// encoded (then it is dropped, which is only safe because encoding fails
// only for values no document can hold).
func encodeInterval(iv query.Interval, desc bool) (bound, bool) {
	lowEnc, err := keycodec.AppendValue(nil, iv.Low, false)
	if err != nil {
		return bound{}, false
	}
	highEnc, err := keycodec.AppendValue(nil, iv.High, false)
	if err != nil {
		return bound{}, false
	}
	b := bound{low: iv.Low, high: iv.High, lowIncl: iv.LowInclusive, highIncl: iv.HighInclusive}
	b.point = iv.LowInclusive && iv.HighInclusive && bytes.Equal(lowEnc, highEnc)
	// Ascending byte range of the values.
	var lo, hi []byte
	if iv.LowInclusive {
		lo = lowEnc
	} else {
		lo = keycodec.PrefixEnd(lowEnc)
	}
	if iv.HighInclusive {
		hi = keycodec.PrefixEnd(highEnc)
	} else {
		hi = highEnc
	}
	if !desc {
		b.lo, b.hi = lo, hi
		if hi != nil && bytes.Compare(lo, hi) >= 0 {
			return bound{}, false
		}
		return b, true
	}
	// Descending: the encoding is inverted, so the value high becomes the
	// low key.
	dlo, _ := keycodec.AppendValue(nil, iv.High, true)
	dhi, _ := keycodec.AppendValue(nil, iv.Low, true)
	if !iv.HighInclusive {
		dlo = keycodec.PrefixEnd(dlo)
	}
	if iv.LowInclusive {
		dhi = keycodec.PrefixEnd(dhi)
	}
	b.lo, b.hi = dlo, dhi
	b.low, b.high, b.lowIncl, b.highIncl = iv.High, iv.Low, iv.HighInclusive, iv.LowInclusive
	if dhi != nil && bytes.Compare(dlo, dhi) >= 0 {
		return bound{}, false
	}
	return b, true
}

// cmpHi compares two exclusive upper bounds where nil is +infinity.
func cmpHi(a, b []byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return bytes.Compare(a, b)
}

// mergeBounds sorts bounds and merges overlapping or touching ones.
func mergeBounds(bs []bound) []bound {
	sort.SliceStable(bs, func(i, j int) bool { return bytes.Compare(bs[i].lo, bs[j].lo) < 0 })
	var out []bound
	for _, b := range bs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.hi == nil || bytes.Compare(b.lo, last.hi) <= 0 {
				if cmpHi(b.hi, last.hi) > 0 {
					last.hi, last.high, last.highIncl = b.hi, b.high, b.highIncl
				}
				last.point = last.point && bytes.Equal(last.lo, b.lo) && cmpHi(last.hi, b.hi) == 0
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

// intersect intersects two sorted, merged bound lists.
func intersect(a, b []bound) []bound {
	var out []bound
	for _, x := range a {
		for _, y := range b {
			lo, low, lowIncl := x.lo, x.low, x.lowIncl
			if bytes.Compare(y.lo, lo) > 0 {
				lo, low, lowIncl = y.lo, y.low, y.lowIncl
			}
			hi, high, highIncl := x.hi, x.high, x.highIncl
			if cmpHi(y.hi, hi) < 0 {
				hi, high, highIncl = y.hi, y.high, y.highIncl
			}
			if hi != nil && bytes.Compare(lo, hi) >= 0 {
				continue
			}
			nb := bound{lo: lo, hi: hi, low: low, high: high, lowIncl: lowIncl, highIncl: highIncl}
			nb.point = (x.point && bytes.Equal(x.lo, lo) && cmpHi(x.hi, hi) == 0) ||
				(y.point && bytes.Equal(y.lo, lo) && cmpHi(y.hi, hi) == 0)
			out = append(out, nb)
		}
	}
	return mergeBounds(out)
}

// points reports whether every bound is a single value.
func (fb fieldBounds) points() bool {
	if fb.all {
		return false
	}
	for _, b := range fb.bounds {
		if !b.point {
			return false
		}
	}
	return true
}

// includesNull reports whether the bounds admit null (missing fields).
func (fb fieldBounds) includesNull() bool {
	if fb.all {
		return true
	}
	for _, desc := range []bool{false, true} {
		enc, _ := keycodec.AppendValue(nil, nil, desc)
		for _, b := range fb.bounds {
			if bytes.Compare(enc, b.lo) >= 0 && (b.hi == nil || bytes.Compare(enc, b.hi) < 0) {
				return true
			}
		}
	}
	return false
}

// scanRanges builds the key ranges of a scan: the product of the point
// prefix fields followed by the bounds of the first non-point field. It
// returns how many fields the ranges use.
func scanRanges(fields []fieldBounds) ([][2][]byte, int) {
	ranges := [][2][]byte{{nil, nil}} // prefixes so far, as [prefix, nil]
	prefixes := [][]byte{nil}
	used := 0
	for _, fb := range fields {
		if fb.all {
			break
		}
		if len(fb.bounds) == 0 {
			// Contradictory bounds: nothing can match.
			return nil, used + 1
		}
		if len(prefixes)*len(fb.bounds) > maxScanRanges {
			break
		}
		used++
		if fb.points() {
			var next [][]byte
			for _, p := range prefixes {
				for _, b := range fb.bounds {
					next = append(next, append(append([]byte(nil), p...), b.lo...))
				}
			}
			prefixes = next
			continue
		}
		ranges = ranges[:0]
		for _, p := range prefixes {
			for _, b := range fb.bounds {
				lo := append(append([]byte(nil), p...), b.lo...)
				var hi []byte
				if b.hi != nil {
					hi = append(append([]byte(nil), p...), b.hi...)
				} else {
					hi = keycodec.PrefixEnd(p)
				}
				ranges = append(ranges, [2][]byte{lo, hi})
			}
		}
		sortRanges(ranges)
		return ranges, used
	}
	ranges = ranges[:0]
	for _, p := range prefixes {
		if p == nil {
			ranges = append(ranges, [2][]byte{nil, nil})
			continue
		}
		ranges = append(ranges, [2][]byte{p, keycodec.PrefixEnd(p)})
	}
	sortRanges(ranges)
	return ranges, used
}

func sortRanges(r [][2][]byte) {
	sort.Slice(r, func(i, j int) bool { return bytes.Compare(r[i][0], r[j][0]) < 0 })
}

// providesSort reports whether scanning ix within fields yields documents in
// sort order, and in which direction. The sort must follow the index fields
// after a prefix bound to single values, all in the index's directions or
// all reversed. Multikey indexes never provide a sort, nor does an index
// whose collation is not the sort's.
func providesSort(ix *catalog.IndexMeta, fields []fieldBounds, s *query.Sort) (ok, reverse bool) {
	if s == nil || s.Empty() {
		return true, false
	}
	if ix.Multikey {
		return false, false
	}
	if sc, _ := s.Collation().(*collation.Collator); !collation.Equal(sc, ix.Collation) {
		// The index orders strings by another collation than the sort.
		return false, false
	}
	sf := s.Fields()
	start := 0
	for start < len(fields) && start < len(ix.Fields) && ix.Fields[start].Path != sf[0].Path {
		if !fields[start].points() || len(fields[start].bounds) != 1 {
			return false, false
		}
		start++
	}
	if start+len(sf) > len(ix.Fields) {
		return false, false
	}
	dir := 0
	for i, f := range sf {
		k := ix.Fields[start+i]
		if k.Path != f.Path {
			return false, false
		}
		d := 1
		if k.Desc != f.Descending {
			d = -1
		}
		if dir == 0 {
			dir = d
		} else if d != dir {
			return false, false
		}
	}
	return true, dir < 0
}

// impliesPartial reports whether every document the query's predicates
// admit is in the partial index: each predicate of the index filter must
// be implied by a query predicate on the same path whose intervals lie
// within its own.
func impliesPartial(preds []query.Predicate, partial *match.Filter) bool {
	for _, pp := range partial.Q.Predicates() {
		pb := encodeIntervals(pp.Intervals(), false)
		implied := false
		for _, qp := range preds {
			if qp.Path != pp.Path {
				continue
			}
			if within(encodeIntervals(qp.Intervals(), false), pb) {
				implied = true
				break
			}
		}
		if !implied {
			return false
		}
	}
	return partialIsConjunction(partial.Q.Spec())
}

// within reports whether every range of a lies inside some range of b.
func within(a, b []bound) bool {
	for _, x := range a {
		ok := false
		for _, y := range b {
			if bytes.Compare(x.lo, y.lo) >= 0 && cmpHi(x.hi, y.hi) <= 0 {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// partialIsConjunction reports whether a partial filter is made only of
// predicates query.Predicates reports (so that implying them all implies
// the filter): no $or, $exists or $type, which it does not describe.
func partialIsConjunction(d bson.D) bool {
	for _, e := range d {
		switch e.Key {
		case "$and":
			arr, _ := e.Value.(bson.A)
			for _, s := range arr {
				sd, ok := s.(bson.D)
				if !ok || !partialIsConjunction(sd) {
					return false
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			return false
		}
		if ops, ok := e.Value.(bson.D); ok && len(ops) > 0 && strings.HasPrefix(ops[0].Key, "$") {
			for _, op := range ops {
				switch op.Key {
				case "$eq", "$gt", "$gte", "$lt", "$lte", "$in":
				default:
					return false
				}
			}
		}
	}
	return true
}

// boundsDoc renders the index bounds for explain: {field: ["[1, 1]", ...]}.
func (p *Plan) boundsDoc() bson.D {
	out := bson.D{}
	for i, f := range p.Index.Fields {
		fb := p.fields[i]
		var list bson.A
		if fb.all {
			if f.Desc {
				list = bson.A{"[MaxKey, MinKey]"}
			} else {
				list = bson.A{"[MinKey, MaxKey]"}
			}
		} else {
			for _, b := range fb.bounds {
				l, r := "(", ")"
				if b.lowIncl {
					l = "["
				}
				if b.highIncl {
					r = "]"
				}
				list = append(list, l+boundValue(b.low)+", "+boundValue(b.high)+r)
			}
			if p.reverse {
				for a, z := 0, len(list)-1; a < z; a, z = a+1, z-1 {
					list[a], list[z] = list[z], list[a]
				}
			}
		}
		out = append(out, bson.E{Key: f.Path, Value: list})
	}
	return out
}

// boundValue renders one bound value as mongod's explain does.
func boundValue(v any) string {
	switch x := v.(type) {
	case bson.MinKey:
		return "MinKey"
	case bson.MaxKey:
		return "MaxKey"
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "inf.0"
		case math.IsInf(x, -1):
			return "-inf.0"
		case math.IsNaN(x):
			return "nan.0"
		}
	case bson.D:
		if len(x) == 0 {
			return "{}"
		}
	case bson.A:
		if len(x) == 0 {
			return "[]"
		}
	}
	return aggregate.FormatValue(v)
}

// String names the plan for debugging.
func (p *Plan) String() string {
	if p.Index == nil {
		return "COLLSCAN"
	}
	return fmt.Sprintf("IXSCAN %s %s", p.Index.Name, aggregate.FormatValue(p.boundsDoc()))
}
