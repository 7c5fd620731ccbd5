package aggregate

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/spill"
)

// A $group's memory is bounded by Env.GroupMemory, as MongoDB bounds it by
// internalDocumentSourceGroupMaxMemoryBytes. The groups are accounted by
// the size of their _id and of what their accumulators keep ($push,
// $addToSet and $mergeObjects grow with their input). Past the limit, with
// disk use allowed, the groups so far are written as a run sorted by group
// key, each with its accumulators' partial states, and grouping starts
// again from empty; at the end the runs and the last groups are merged by
// key, the partial states of one key combined in input order, and the
// groups come out one at a time in key order. Without disk use the stage
// fails as MongoDB's does.

// groupRecord is a group as a run holds it: its key, _id and the partial
// states of its accumulators.
type groupRecord struct {
	key    string
	id     any
	states bson.A
}

// accState returns an accumulator's partial state, a BSON value that
// mergeState can combine into another accumulator of the same operator.
func accState(a accumulator) (any, error) {
	switch a := a.(type) {
	case *sumAcc:
		return a.sum, nil
	case *avgAcc:
		return bson.A{a.sum, a.n}, nil
	case *minMaxAcc:
		return bson.A{a.val, a.set}, nil
	case *firstAcc:
		return bson.A{a.val, a.set}, nil
	case *lastAcc:
		return a.val, nil
	case *pushAcc:
		return a.out, nil
	case *setAcc:
		return a.out, nil
	case *mergeAcc:
		return a.out, nil
	case *stdDevAcc:
		return bson.A{a.n, a.mean, a.m}, nil
	}
	return nil, fmt.Errorf("aggregate: no partial state for %T", a)
}

// mergeState combines the partial state st of the same operator's
// accumulator over later input into a.
func mergeState(a accumulator, st any) error {
	arr, _ := st.(bson.A)
	switch a := a.(type) {
	case *sumAcc:
		a.sum = numAdd(a.sum, st)
	case *avgAcc:
		a.sum = numAdd(a.sum, arr[0])
		a.n += arr[1].(int64)
	case *minMaxAcc:
		if arr[1].(bool) {
			return a.add(arr[0])
		}
	case *firstAcc:
		if !a.set && arr[1].(bool) {
			a.val, a.set = arr[0], true
		}
	case *lastAcc:
		a.val = st
	case *pushAcc:
		a.out = append(a.out, arr...)
	case *setAcc:
		for _, v := range arr {
			if err := a.add(v); err != nil {
				return err
			}
		}
	case *mergeAcc:
		d, _ := st.(bson.D)
		for _, e := range d {
			a.out = setField(a.out, e.Key, e.Value)
		}
	case *stdDevAcc:
		n, mean, m := arr[0].(float64), arr[1].(float64), arr[2].(float64)
		if n == 0 {
			return nil
		}
		total := a.n + n
		delta := mean - a.mean
		a.m += m + delta*delta*a.n*n/total
		a.mean += delta * n / total
		a.n = total
	default:
		return fmt.Errorf("aggregate: no partial state for %T", a)
	}
	return nil
}

// growingAccumulator reports whether op's accumulator keeps its inputs.
func growingAccumulator(op string) bool {
	return op == "$push" || op == "$addToSet" || op == "$mergeObjects"
}

// groupRecordSize is what a new group is accounted for.
func groupRecordSize(key string, id any, accs int) int64 {
	return 64 + int64(len(key)) + docSize(id) + 48*int64(accs)
}

// newGroupSpill returns the sorter of a $group's runs.
func newGroupSpill(mem MemoryLimit) *spill.Sorter[groupRecord] {
	return spill.New(spill.Options[groupRecord]{
		Compare:   func(a, b groupRecord) int { return strings.Compare(a.key, b.key) },
		Size:      func(groupRecord) int64 { return 0 }, // runs are written by SpillNow
		Encode:    encodeGroupRecord,
		Decode:    decodeGroupRecord,
		MaxMemory: 1,
		AllowDisk: true,
		Dir:       mem.Dir,
	})
}

func encodeGroupRecord(dst []byte, r groupRecord) ([]byte, error) {
	raw, err := bson.Marshal(bson.D{{Key: "k", Value: r.key}, {Key: "i", Value: r.id}, {Key: "s", Value: r.states}})
	return append(dst, raw...), err
}

func decodeGroupRecord(b []byte) (groupRecord, error) {
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		return groupRecord{}, err
	}
	if len(d) != 3 {
		return groupRecord{}, fmt.Errorf("aggregate: malformed group record")
	}
	key, _ := d[0].Value.(string)
	states, _ := d[2].Value.(bson.A)
	return groupRecord{key: key, id: d[1].Value, states: states}, nil
}

// spillGroups writes the groups as a run, in key order.
func spillGroups(sp *spill.Sorter[groupRecord], order []*group, keys []string) error {
	if err := addGroups(sp, order, keys); err != nil {
		return err
	}
	return sp.SpillNow()
}

// addGroups hands the groups to the sorter with their partial states.
func addGroups(sp *spill.Sorter[groupRecord], order []*group, keys []string) error {
	for i, g := range order {
		states := make(bson.A, len(g.accs))
		for j, a := range g.accs {
			st, err := accState(a)
			if err != nil {
				return err
			}
			states[j] = st
		}
		if err := sp.Add(groupRecord{key: keys[i], id: g.id, states: states}); err != nil {
			return err
		}
	}
	return nil
}

// mergedGroups reads the merged runs and returns the next whole group,
// its partial states combined in input order; ok is false at the end.
type mergedGroups struct {
	sp      *spill.Sorter[groupRecord]
	s       *groupStage
	coll    *collation.Collator
	pending *groupRecord
}

func (m *mergedGroups) next() (*group, bool, error) {
	var first groupRecord
	if m.pending != nil {
		first, m.pending = *m.pending, nil
	} else {
		r, ok, err := m.sp.Next()
		if err != nil || !ok {
			return nil, false, err
		}
		first = r
	}
	g := &group{id: first.id}
	for _, a := range m.s.accs {
		acc, _ := newAccumulator(a.op, m.coll)
		g.accs = append(g.accs, acc)
	}
	add := func(r groupRecord) error {
		if len(r.states) != len(g.accs) {
			return fmt.Errorf("aggregate: malformed group record")
		}
		for j, a := range g.accs {
			if err := mergeState(a, r.states[j]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(first); err != nil {
		return nil, false, err
	}
	for {
		r, ok, err := m.sp.Next()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return g, true, nil
		}
		if r.key != first.key {
			m.pending = &r
			return g, true, nil
		}
		if err := add(r); err != nil {
			return nil, false, err
		}
	}
}
