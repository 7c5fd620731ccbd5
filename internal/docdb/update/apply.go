package update

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// ApplyContext carries what an update needs besides the document.
type ApplyContext struct {
	// Insert is true when the update builds the document an upsert inserts
	// (applied to UpsertSeed's result): $setOnInsert applies. _id may be
	// set only when the seed has none.
	Insert bool
	// HasPosition says Position is valid: the index, in the array the query
	// traversed, of the element that matched (query.MatchResult.ArrayIndex),
	// which the positional "$" operator addresses.
	HasPosition bool
	Position    int
	// Now is the time $currentDate and $$NOW use.
	Now time.Time
	// Vars are the let variables of the update command, for pipeline
	// updates (may be nil).
	Vars *aggregate.Vars
	// Context cancels pipeline updates; nil means context.Background.
	Context context.Context
}

// action says what to do with a field after an operator ran.
type action int

const (
	keep action = iota
	set
	remove
)

// applier holds the state of one Apply.
type applier struct {
	u       *Update
	ctx     ApplyContext
	idStr   string
	renamed map[*leaf]renameValue
}

type renameValue struct {
	val any
	ok  bool
}

// Apply applies the update to doc and returns the new document and whether
// it differs from doc. doc is not modified.
func (u *Update) Apply(doc bson.D, ctx ApplyContext) (bson.D, bool, error) {
	a := &applier{u: u, ctx: ctx}
	a.idStr = "{}"
	if id, ok := lookup(doc, "_id"); ok {
		a.idStr = "{_id: " + aggregate.FormatValue(id) + "}"
	}
	var out bson.D
	var err error
	switch u.kind {
	case Replacement:
		out, err = a.replace(doc)
	case Pipeline:
		out, err = a.runPipeline(doc)
	default:
		out, err = a.operators(doc)
	}
	if err != nil {
		return nil, false, err
	}
	return out, !StrictEqual(doc, out), nil
}

func (a *applier) replace(doc bson.D) (bson.D, error) {
	out := aggregate.CloneDoc(a.u.replacement)
	if out == nil {
		out = bson.D{}
	}
	oldID, hadID := lookup(doc, "_id")
	newID, hasID := lookup(out, "_id")
	switch {
	case hadID && hasID:
		if !StrictEqual(oldID, newID) {
			return nil, mongoerr.Newf(mongoerr.ImmutableField, "After applying the update, the (immutable) field '_id' was found to have been altered to _id: %s", aggregate.FormatValue(newID))
		}
	case hadID:
		out = append(bson.D{{Key: "_id", Value: oldID}}, out...)
	}
	return out, nil
}

func (a *applier) runPipeline(doc bson.D) (bson.D, error) {
	vars := a.ctx.Vars
	if vars == nil {
		vars = aggregate.NewVars(a.ctx.Now)
	} else if vars.Now.IsZero() {
		c := *vars
		c.Now = a.ctx.Now
		vars = &c
	}
	ctx := a.ctx.Context
	if ctx == nil {
		ctx = context.Background()
	}
	out, err := a.u.pipeline.ApplyOne(ctx, aggregate.CloneDoc(doc), vars)
	if err != nil {
		return nil, err
	}
	// A pipeline whose result leaves _id out keeps the document's _id, in
	// first place, as MongoDB does; only a different _id is refused.
	if oldID, hadID := lookup(doc, "_id"); hadID {
		if _, hasID := lookup(out, "_id"); !hasID {
			out = append(bson.D{{Key: "_id", Value: oldID}}, out...)
		}
	}
	if err := a.checkID(doc, out, "_id"); err != nil {
		return nil, err
	}
	return out, nil
}

// checkID enforces the immutability of _id: an update may not change the
// _id of the document it applies to, nor, on an upsert insert, the _id the
// query's equality gave the new document.
func (a *applier) checkID(old, out bson.D, path string) error {
	oldID, hadID := lookup(old, "_id")
	if !hadID {
		return nil
	}
	newID, hasID := lookup(out, "_id")
	if !hasID || !StrictEqual(oldID, newID) {
		return mongoerr.Newf(mongoerr.ImmutableField, "Performing an update on the path '%s' would modify the immutable field '_id'", path)
	}
	return nil
}

func (a *applier) operators(doc bson.D) (bson.D, error) {
	if err := a.readRenames(doc); err != nil {
		return nil, err
	}
	work := aggregate.CloneDoc(doc)
	if work == nil {
		work = bson.D{}
	}
	out, err := a.applyDoc(a.u.root, work, nil)
	if err != nil {
		return nil, err
	}
	idPath := "_id"
	for _, p := range a.u.paths {
		if p == "_id" || strings.HasPrefix(p, "_id.") {
			idPath = p
			break
		}
	}
	if err := a.checkID(doc, out, idPath); err != nil {
		return nil, err
	}
	return out, nil
}

// readRenames reads the source value of every $rename before the tree is
// applied, and rejects sources and destinations inside arrays.
func (a *applier) readRenames(doc bson.D) error {
	for _, dest := range a.u.renames {
		if a.renamed == nil {
			a.renamed = map[*leaf]renameValue{}
		}
		var cur any = doc
		found := true
		for i, p := range dest.from {
			d, ok := cur.(bson.D)
			if !ok {
				if _, isArr := cur.(bson.A); isArr {
					return mongoerr.Newf(mongoerr.BadValue, "The source field cannot be an array element, '%s' in doc with _id: %s has an array field called '%s'", strings.Join(dest.from, "."), a.idValue(), dest.from[i-1])
				}
				found = false
				break
			}
			v, ok := lookup(d, p)
			if !ok {
				found = false
				break
			}
			cur = v
		}
		a.renamed[dest] = renameValue{val: cur, ok: found}
		if !found {
			continue
		}
		var dc any = doc
		toParts := strings.Split(dest.path, ".")
		for i, p := range toParts[:len(toParts)-1] {
			d, ok := dc.(bson.D)
			if !ok {
				break
			}
			v, ok := lookup(d, p)
			if !ok {
				break
			}
			if _, isArr := v.(bson.A); isArr {
				return mongoerr.Newf(mongoerr.BadValue, "The destination field cannot be an array element, '%s' in doc with _id: %s has an array field called '%s'", dest.path, a.idValue(), toParts[i])
			}
			dc = v
		}
	}
	return nil
}

func (a *applier) idValue() string {
	s := strings.TrimPrefix(a.idStr, "{_id: ")
	return strings.TrimSuffix(s, "}")
}

// applyDoc applies n's children to document d.
func (a *applier) applyDoc(n *node, d bson.D, path []string) (bson.D, error) {
	for _, key := range n.sortedKeys() {
		child := n.children[key]
		name := key
		switch {
		case key == "$":
			if !a.ctx.HasPosition {
				return nil, positionalNotFound()
			}
			name = strconv.Itoa(a.ctx.Position)
		case strings.HasPrefix(key, "$["):
			return nil, mongoerr.Newf(mongoerr.BadValue, "Cannot apply array updates to non-array element %s: %s", lastOf(path), aggregate.FormatValue(d))
		}
		cur, exists := lookup(d, name)
		nv, act, err := a.applyChild(child, name, cur, exists, appendPath(path, name))
		if err != nil {
			return nil, err
		}
		switch act {
		case set:
			d = setField(d, name, nv)
		case remove:
			d = removeField(d, name)
		}
	}
	return d, nil
}

func positionalNotFound() error {
	return mongoerr.New(mongoerr.BadValue, "The positional operator did not find the match needed from the query.")
}

func lastOf(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return path[len(path)-1]
}

func appendPath(path []string, name string) []string {
	out := make([]string, len(path)+1)
	copy(out, path)
	out[len(path)] = name
	return out
}

// applyChild applies the subtree child to the value cur found under name.
func (a *applier) applyChild(child *node, name string, cur any, exists bool, path []string) (any, action, error) {
	if child.leaf != nil {
		return a.applyLeaf(child.leaf, name, cur, exists, path)
	}
	if !exists {
		if !child.creates(a.ctx.Insert) {
			return nil, keep, nil
		}
		if child.hasArrayUpdates() {
			return nil, keep, mongoerr.Newf(mongoerr.BadValue, "The path '%s' must exist in the document in order to apply array updates.", strings.Join(path, "."))
		}
		nd, err := a.applyDoc(child, bson.D{}, path)
		if err != nil {
			return nil, keep, err
		}
		if len(nd) == 0 {
			return nil, keep, nil
		}
		return nd, set, nil
	}
	switch x := cur.(type) {
	case bson.D:
		nd, err := a.applyDoc(child, x, path)
		return nd, set, err
	case bson.A:
		na, err := a.applyArray(child, x, path)
		return na, set, err
	}
	if child.hasArrayUpdates() {
		return nil, keep, mongoerr.Newf(mongoerr.BadValue, "Cannot apply array updates to non-array element %s: %s", name, aggregate.FormatValue(cur))
	}
	if !child.creates(a.ctx.Insert) {
		return nil, keep, nil
	}
	for _, k := range child.sortedKeys() {
		if child.children[k].creates(a.ctx.Insert) {
			if k == "$" && a.ctx.HasPosition {
				k = strconv.Itoa(a.ctx.Position)
			}
			return nil, keep, cannotCreate(k, name, cur)
		}
	}
	return nil, keep, nil
}

func cannotCreate(field, name string, cur any) error {
	return mongoerr.Newf(mongoerr.PathNotViable, "Cannot create field '%s' in element {%s: %s}", field, name, aggregate.FormatValue(cur))
}

// applyArray applies n's children to the elements of arr.
func (a *applier) applyArray(n *node, arr bson.A, path []string) (bson.A, error) {
	name := lastOf(path)
	at := func(child *node, idx int) error {
		exists := idx < len(arr)
		var cur any
		if exists {
			cur = arr[idx]
		}
		key := strconv.Itoa(idx)
		nv, act, err := a.applyChild(child, key, cur, exists, appendPath(path, key))
		if err != nil {
			return err
		}
		switch act {
		case set:
			for len(arr) < idx {
				arr = append(arr, nil)
			}
			if idx == len(arr) {
				arr = append(arr, nv)
			} else {
				arr[idx] = nv
			}
		case remove:
			if exists {
				arr[idx] = nil
			}
		}
		return nil
	}
	for _, key := range n.sortedKeys() {
		child := n.children[key]
		switch {
		case key == "$":
			if !a.ctx.HasPosition {
				return nil, positionalNotFound()
			}
			if err := at(child, a.ctx.Position); err != nil {
				return nil, err
			}
		case key == "$[]":
			for i := range arr {
				if err := at(child, i); err != nil {
					return nil, err
				}
			}
		case strings.HasPrefix(key, "$["):
			id := key[2 : len(key)-1]
			f := a.u.filters[id]
			for i := range arr {
				if f.Match(bson.D{{Key: id, Value: arr[i]}}) {
					if err := at(child, i); err != nil {
						return nil, err
					}
				}
			}
		case isDigits(key):
			idx, err := strconv.Atoi(key)
			if err != nil || idx > maxPad {
				return nil, mongoerr.Newf(mongoerr.BadValue, "can't backfill array to larger than 1,500,000 elements")
			}
			if err := at(child, idx); err != nil {
				return nil, err
			}
		default:
			if child.creates(a.ctx.Insert) {
				return nil, cannotCreate(key, name, arr)
			}
		}
	}
	return arr, nil
}

// maxPad bounds how far a numeric path may pad an array with nulls, as
// MongoDB's 1,500,000 element limit.
const maxPad = 1500000

// applyLeaf runs one operator on the value cur (present when exists).
func (a *applier) applyLeaf(l *leaf, name string, cur any, exists bool, path []string) (any, action, error) {
	switch l.op {
	case "$set":
		return aggregate.CloneValue(l.arg), set, nil
	case "$setOnInsert":
		if a.ctx.Insert {
			return aggregate.CloneValue(l.arg), set, nil
		}
		return nil, keep, nil
	case "$unset":
		if exists {
			return nil, remove, nil
		}
		return nil, keep, nil
	case "$inc", "$mul":
		return a.arithmetic(l, name, cur, exists)
	case "$min", "$max":
		if !exists {
			return aggregate.CloneValue(l.arg), set, nil
		}
		c := query.Compare(l.arg, cur)
		if (l.op == "$min" && c < 0) || (l.op == "$max" && c > 0) {
			return aggregate.CloneValue(l.arg), set, nil
		}
		return nil, keep, nil
	case "$currentDate":
		if l.timestamp {
			return bson.Timestamp{T: uint32(a.ctx.Now.Unix()), I: 1}, set, nil
		}
		return bson.NewDateTimeFromTime(a.ctx.Now), set, nil
	case "$push":
		return a.push(l, name, cur, exists)
	case "$addToSet":
		return a.addToSet(l, name, cur, exists)
	case "$pop":
		return a.pop(l, cur, exists, path)
	case "$pull", "$pullAll":
		return a.pull(l, cur, exists)
	case "$rename":
		if exists {
			return nil, remove, nil
		}
		return nil, keep, nil
	case "$rename.to":
		rv := a.renamed[l]
		if !rv.ok {
			return nil, keep, nil
		}
		return rv.val, set, nil
	}
	return nil, keep, nil
}

// arithmetic runs $inc or $mul.
func (a *applier) arithmetic(l *leaf, name string, cur any, exists bool) (any, action, error) {
	if !exists {
		if l.op == "$inc" {
			return l.arg, set, nil
		}
		return zeroLike(l.arg), set, nil
	}
	if !isNumber(cur) {
		return nil, keep, mongoerr.Newf(mongoerr.TypeMismatch, "Cannot apply %s to a value of non-numeric type. %s has the field '%s' of non-numeric type %s", l.op, a.idStr, name, aggregate.TypeName(cur))
	}
	var r any
	var ok bool
	if l.op == "$inc" {
		r, ok = aggregate.AddNumbers(cur, l.arg)
	} else {
		r, ok = aggregate.MulNumbers(cur, l.arg)
	}
	if !ok {
		// mongod's arithmetic node names $inc for $mul too.
		return nil, keep, mongoerr.Newf(mongoerr.BadValue, "Failed to apply $inc operations to current value (%s) for document %s", safeNumString(cur), a.idStr)
	}
	return r, set, nil
}

// push runs $push with its modifiers ($each, $position, $sort, $slice).
func (a *applier) push(l *leaf, name string, cur any, exists bool) (any, action, error) {
	var arr bson.A
	if exists {
		x, ok := cur.(bson.A)
		if !ok {
			return nil, keep, mongoerr.Newf(mongoerr.BadValue, "The field '%s' must be an array but is of type %s in document %s", name, aggregate.TypeName(cur), a.idStr)
		}
		arr = append(bson.A{}, x...)
	} else {
		arr = bson.A{}
	}
	each := make(bson.A, len(l.each))
	for i, e := range l.each {
		each[i] = aggregate.CloneValue(e)
	}
	pos := int64(len(arr))
	if l.hasPos {
		pos = l.position
		if pos < 0 {
			pos = max(int64(len(arr))+pos, 0)
		}
		if pos > int64(len(arr)) {
			pos = int64(len(arr))
		}
	}
	arr = append(arr[:pos:pos], append(each, arr[pos:]...)...)
	if l.sortSpec != nil {
		l.sortElements(arr)
	}
	if l.hasSlice {
		n := int64(len(arr))
		switch {
		case l.slice >= 0 && l.slice < n:
			arr = arr[:l.slice]
		case l.slice < 0 && -l.slice < n:
			arr = arr[n+l.slice:]
		}
	}
	return arr, set, nil
}

// addToSet runs $addToSet: each value not already in the array is appended.
func (a *applier) addToSet(l *leaf, name string, cur any, exists bool) (any, action, error) {
	var arr bson.A
	if exists {
		x, ok := cur.(bson.A)
		if !ok {
			return nil, keep, mongoerr.Newf(mongoerr.BadValue, "Cannot apply $addToSet to non-array field. Field named '%s' has non-array type %s", name, aggregate.TypeName(cur))
		}
		arr = append(bson.A{}, x...)
	} else {
		arr = bson.A{}
	}
	for _, e := range l.each {
		found := false
		for _, x := range arr {
			if query.Equal(x, e) {
				found = true
				break
			}
		}
		if !found {
			arr = append(arr, aggregate.CloneValue(e))
		}
	}
	return arr, set, nil
}

// pop runs $pop: the first (arg < 0) or last element is removed.
func (a *applier) pop(l *leaf, cur any, exists bool, path []string) (any, action, error) {
	if !exists {
		return nil, keep, nil
	}
	arr, ok := cur.(bson.A)
	if !ok {
		return nil, keep, mongoerr.Newf(mongoerr.TypeMismatch, "Path '%s' contains an element of non-array type '%s'", strings.Join(path, "."), aggregate.TypeName(cur))
	}
	if len(arr) == 0 {
		return nil, keep, nil
	}
	if toFloat(l.arg) < 0 {
		return append(bson.A{}, arr[1:]...), set, nil
	}
	return append(bson.A{}, arr[:len(arr)-1]...), set, nil
}

// pull runs $pull (elements matching a condition) or $pullAll (elements
// equal to one of the values).
func (a *applier) pull(l *leaf, cur any, exists bool) (any, action, error) {
	if !exists {
		return nil, keep, nil
	}
	arr, ok := cur.(bson.A)
	if !ok {
		return nil, keep, mongoerr.Newf(mongoerr.BadValue, "Cannot apply %s to a non-array value", l.op)
	}
	out := bson.A{}
	for _, e := range arr {
		drop := false
		if l.op == "$pull" {
			drop = l.pullMatches(e)
		} else {
			for _, x := range l.each {
				if query.Equal(e, x) {
					drop = true
					break
				}
			}
		}
		if !drop {
			out = append(out, e)
		}
	}
	return out, set, nil
}

// zeroLike returns zero of the numeric type of v ($mul on a missing field).
func zeroLike(v any) any {
	switch v.(type) {
	case int64:
		return int64(0)
	case float64:
		return 0.0
	case bson.Decimal128:
		d, _ := bson.ParseDecimal128("0")
		return d
	}
	return int32(0)
}

// safeNumString renders a number as MongoDB's SafeNum debug string.
func safeNumString(v any) string {
	switch x := v.(type) {
	case int32:
		return "(NumberInt)" + strconv.FormatInt(int64(x), 10)
	case int64:
		return "(NumberLong)" + strconv.FormatInt(x, 10)
	case float64:
		return "(NumberDouble)" + strconv.FormatFloat(x, 'g', -1, 64)
	case bson.Decimal128:
		return "(NumberDecimal)" + x.String()
	}
	return aggregate.FormatValue(v)
}

// lookup returns the field name of d.
func lookup(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

// setField sets name in d in place or appends it.
func setField(d bson.D, name string, v any) bson.D {
	for i := range d {
		if d[i].Key == name {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: name, Value: v})
}

// removeField removes name from d.
func removeField(d bson.D, name string) bson.D {
	for i := range d {
		if d[i].Key == name {
			return append(d[:i:i], d[i+1:]...)
		}
	}
	return d
}

// StrictEqual reports whether a and b are identical BSON values: same
// types, same field order, same bits. It is how an update decides that it
// changed nothing.
func StrictEqual(a, b any) bool {
	switch x := a.(type) {
	case bson.D:
		y, ok := b.(bson.D)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !StrictEqual(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y, ok := b.(bson.A)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !StrictEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case nil:
		return b == nil
	}
	if aggregate.TypeName(a) != aggregate.TypeName(b) {
		return false
	}
	switch x := a.(type) {
	case bson.Binary:
		y := b.(bson.Binary)
		return x.Subtype == y.Subtype && string(x.Data) == string(y.Data)
	case bson.Decimal128:
		xh, xl := x.GetBytes()
		yh, yl := b.(bson.Decimal128).GetBytes()
		return xh == yh && xl == yl
	}
	return query.Compare(a, b) == 0
}
