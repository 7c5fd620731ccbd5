package plan

import (
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// Explain output in MongoDB's classic-engine shape: queryPlanner with the
// winning plan as a tree of stages (COLLSCAN or IXSCAN+FETCH, then SORT,
// SKIP, LIMIT, PROJECTION_*), and, when asked, executionStats from running
// the plan: nReturned, totalKeysExamined, totalDocsExamined,
// executionTimeMillis and executionStages (the same tree with per-stage
// counters).

// Shape describes the stages above the access path.
type Shape struct {
	Skip, Limit int64
	Proj        bson.D
	ProjSimple  bool
	// Top wraps the whole tree (COUNT, DELETE, UPDATE); empty for none.
	Top      string
	TopExtra bson.D
	// SortMemLimit is a blocking sort's memory limit (memLimit); zero
	// means MongoDB's default, 100 MiB.
	SortMemLimit int64
}

// explainInt is a counter as explain reports it: an int, or a long past
// the int range.
func explainInt(n int64) any {
	if n >= -1<<31 && n < 1<<31 {
		return int32(n)
	}
	return n
}

// Tree renders the stage tree of p; with stats it adds the execution
// counters.
func Tree(p *Plan, shape Shape, st *Stats, elapsed time.Duration) bson.D {
	withStats := st != nil
	if st == nil {
		st = &Stats{}
	}
	est := int64(elapsed / time.Millisecond)
	common := func(stage string, nReturned int64) bson.D {
		d := bson.D{{Key: "stage", Value: stage}}
		if withStats {
			d = append(d,
				bson.E{Key: "nReturned", Value: int32(nReturned)},
				bson.E{Key: "executionTimeMillisEstimate", Value: int32(est)},
				bson.E{Key: "works", Value: int32(st.keysExamined + st.docsExamined + 1)},
				bson.E{Key: "advanced", Value: int32(nReturned)},
				bson.E{Key: "needTime", Value: int32(0)},
				bson.E{Key: "needYield", Value: int32(0)},
				bson.E{Key: "saveState", Value: int32(0)},
				bson.E{Key: "restoreState", Value: int32(0)},
				bson.E{Key: "isEOF", Value: int32(1)},
			)
		}
		return d
	}
	var filterSpec bson.D
	if p.Filter != nil {
		filterSpec = p.Filter.Q.Spec()
	}
	var tree bson.D
	if p.Index == nil {
		tree = common("COLLSCAN", st.Matched)
		if len(filterSpec) > 0 {
			tree = append(tree, bson.E{Key: "filter", Value: filterSpec})
		}
		dir := "forward"
		if p.reverse {
			dir = "backward"
		}
		tree = append(tree, bson.E{Key: "direction", Value: dir})
		if withStats {
			tree = append(tree, bson.E{Key: "docsExamined", Value: int32(st.docsExamined)})
		}
	} else {
		ix := p.Index
		scan := common("IXSCAN", st.keysExamined)
		dir := "forward"
		if p.reverse {
			dir = "backward"
		}
		paths := bson.D{}
		for _, f := range ix.Fields {
			var mk bson.A
			if ix.Multikey {
				mk = bson.A{f.Path}
			} else {
				mk = bson.A{}
			}
			paths = append(paths, bson.E{Key: f.Path, Value: mk})
		}
		scan = append(scan,
			bson.E{Key: "keyPattern", Value: ix.Key},
			bson.E{Key: "indexName", Value: ix.Name},
			bson.E{Key: "isMultiKey", Value: ix.Multikey},
			bson.E{Key: "multiKeyPaths", Value: paths},
			bson.E{Key: "isUnique", Value: ix.Unique},
			bson.E{Key: "isSparse", Value: ix.Sparse},
			bson.E{Key: "isPartial", Value: ix.Partial != nil},
			bson.E{Key: "indexVersion", Value: int32(2)},
			bson.E{Key: "direction", Value: dir},
			bson.E{Key: "indexBounds", Value: p.boundsDoc()},
		)
		if withStats {
			scan = append(scan,
				bson.E{Key: "keysExamined", Value: int32(st.keysExamined)},
				bson.E{Key: "seeks", Value: int32(len(p.ranges))},
				bson.E{Key: "dupsTested", Value: int32(boolInt(p.dedupe) * st.keysExamined)},
				bson.E{Key: "dupsDropped", Value: int32(st.keysExamined - st.docsExamined)},
			)
		}
		tree = common("FETCH", st.Matched)
		if len(filterSpec) > 0 && !p.boundsCoverFilter() {
			tree = append(tree, bson.E{Key: "filter", Value: filterSpec})
		}
		if withStats {
			tree = append(tree, bson.E{Key: "docsExamined", Value: int32(st.docsExamined)}, bson.E{Key: "alreadyHasObj", Value: int32(0)})
		}
		tree = append(tree, bson.E{Key: "inputStage", Value: scan})
	}
	afterSort := st.Matched
	if p.Sort != nil && !p.Sort.Empty() && !p.SortProvided {
		afterSort = st.Sorted
		if shape.Limit > 0 && shape.Skip+shape.Limit < afterSort {
			afterSort = shape.Skip + shape.Limit
		}
		s := common("SORT", afterSort)
		memLimit := shape.SortMemLimit
		if memLimit <= 0 {
			memLimit = 100 * 1024 * 1024
		}
		s = append(s, bson.E{Key: "sortPattern", Value: sortSpec(p.Sort)}, bson.E{Key: "memLimit", Value: explainInt(memLimit)})
		if shape.Limit > 0 {
			s = append(s, bson.E{Key: "limitAmount", Value: int32(shape.Skip + shape.Limit)})
		}
		s = append(s, bson.E{Key: "type", Value: "simple"})
		if withStats {
			s = append(s, bson.E{Key: "totalDataSizeSorted", Value: explainInt(st.SortedBytes)}, bson.E{Key: "usedDisk", Value: st.Spills > 0}, bson.E{Key: "spills", Value: explainInt(st.Spills)})
		}
		tree = append(s, bson.E{Key: "inputStage", Value: tree})
		if shape.Skip > 0 {
			k := common("SKIP", st.Returned)
			k = append(k, bson.E{Key: "skipAmount", Value: int32(shape.Skip)})
			tree = append(k, bson.E{Key: "inputStage", Value: tree})
		}
	} else {
		if shape.Skip > 0 {
			n := afterSort - shape.Skip
			if n < 0 {
				n = 0
			}
			if withStats {
				n = st.Matched - st.Skipped
			}
			k := common("SKIP", n)
			k = append(k, bson.E{Key: "skipAmount", Value: int32(shape.Skip)})
			tree = append(k, bson.E{Key: "inputStage", Value: tree})
		}
		if shape.Limit > 0 {
			l := common("LIMIT", st.Returned)
			l = append(l, bson.E{Key: "limitAmount", Value: int32(shape.Limit)})
			tree = append(l, bson.E{Key: "inputStage", Value: tree})
		}
	}
	if len(shape.Proj) > 0 {
		name := "PROJECTION_DEFAULT"
		if shape.ProjSimple {
			name = "PROJECTION_SIMPLE"
		}
		pr := common(name, st.Returned)
		pr = append(pr, bson.E{Key: "transformBy", Value: shape.Proj})
		tree = append(pr, bson.E{Key: "inputStage", Value: tree})
	}
	if shape.Top != "" {
		t := common(shape.Top, 0)
		t = append(t, shape.TopExtra...)
		tree = append(t, bson.E{Key: "inputStage", Value: tree})
	}
	return tree
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// sortSpec renders a parsed sort back as a document.
func sortSpec(s *query.Sort) bson.D {
	out := bson.D{}
	for _, f := range s.Fields() {
		dir := int32(1)
		if f.Descending {
			dir = -1
		}
		out = append(out, bson.E{Key: f.Path, Value: dir})
	}
	return out
}

// boundsCoverFilter reports whether the index bounds alone decide the
// filter, so FETCH needs no filter: a flat conjunction of equalities and
// ranges on bounded fields of a non-multikey index.
func (p *Plan) boundsCoverFilter() bool {
	if p.Index == nil || p.Index.Multikey || p.Filter == nil {
		return false
	}
	spec := p.Filter.Q.Spec()
	for _, e := range spec {
		i := -1
		for j, f := range p.Index.Fields {
			if f.Path == e.Key {
				i = j
			}
		}
		if i < 0 || p.fields[i].all {
			return false
		}
		switch v := e.Value.(type) {
		case bson.D:
			for _, op := range v {
				switch op.Key {
				case "$eq", "$gt", "$gte", "$lt", "$lte", "$in":
				default:
					return false
				}
			}
		case bson.A, bson.Regex:
			return false
		}
	}
	return true
}

// IsSimpleProjection reports whether a projection only keeps or drops
// top-level fields (mongod's PROJECTION_SIMPLE).
func IsSimpleProjection(spec bson.D) bool {
	for _, e := range spec {
		if strings.Contains(e.Key, ".") || strings.HasPrefix(e.Key, "$") {
			return false
		}
		switch e.Value.(type) {
		case bool, int32, int64, float64:
		default:
			return false
		}
	}
	return true
}

// QueryPlanner builds the queryPlanner section.
func QueryPlanner(meta *catalog.CollMeta, db, coll string, p *Plan, tree bson.D) bson.D {
	parsed := bson.D{}
	if p != nil && p.Filter != nil {
		parsed = p.Filter.Q.Spec()
	}
	return bson.D{
		{Key: "namespace", Value: db + "." + coll},
		{Key: "indexFilterSet", Value: false},
		{Key: "parsedQuery", Value: parsed},
		{Key: "maxIndexedOrSolutionsReached", Value: false},
		{Key: "maxIndexedAndSolutionsReached", Value: false},
		{Key: "maxScansToExplodeReached", Value: false},
		{Key: "winningPlan", Value: tree},
		{Key: "rejectedPlans", Value: bson.A{}},
	}
}

// EOFTree is the plan of a query on a missing collection.
func EOFTree() bson.D { return bson.D{{Key: "stage", Value: "EOF"}} }

// ExecutionStats builds the executionStats section.
func ExecutionStats(st *Stats, nReturned int64, elapsed time.Duration, stages bson.D) bson.D {
	return bson.D{
		{Key: "executionSuccess", Value: true},
		{Key: "nReturned", Value: int32(nReturned)},
		{Key: "executionTimeMillis", Value: int32(elapsed / time.Millisecond)},
		{Key: "totalKeysExamined", Value: int32(st.keysExamined)},
		{Key: "totalDocsExamined", Value: int32(st.docsExamined)},
		{Key: "executionStages", Value: stages},
	}
}

// Hint returns a hint that forces plan p.
func Hint(p *Plan) any {
	if p.Index == nil {
		dir := int32(1)
		if p.reverse {
			dir = -1
		}
		return bson.D{{Key: "$natural", Value: dir}}
	}
	return p.Index.Name
}
