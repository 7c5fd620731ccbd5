package update

import (
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// Kind says which form of update an Update is.
type Kind int

const (
	// Operators is an update made of update operators ($set, $inc, ...).
	Operators Kind = iota
	// Replacement replaces the whole document (keeping its _id).
	Replacement
	// Pipeline is a pipeline-style update (an array of stages).
	Pipeline
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Operators:
		return "operators"
	case Replacement:
		return "replacement"
	}
	return "pipeline"
}

// Options configures Parse.
type Options struct {
	// Multi is true for updates that may modify several documents
	// (updateMany, multi: true); a replacement is then refused.
	Multi bool
	// ArrayFilters are the arrayFilters of the update command, one filter
	// document per identifier used in $[<id>].
	ArrayFilters []bson.D
	// ExprCompiler compiles $expr inside array filters and $pull
	// conditions; nil refuses $expr there.
	ExprCompiler query.ExprCompiler
	// Vars names the command's let variables, which a pipeline-style
	// update may use ($$name).
	Vars []string
}

// Update is a parsed update. It is immutable and safe for concurrent use.
type Update struct {
	kind        Kind
	root        *node
	replacement bson.D
	pipeline    *aggregate.Pipeline
	filters     map[string]*query.Filter
	positional  bool
	renames     []*leaf
	paths       []string
}

// Kind returns the form of the update.
func (u *Update) Kind() Kind { return u.kind }

// Positional reports whether the update uses the positional "$" operator,
// so the caller must supply the matched array index.
func (u *Update) Positional() bool { return u.positional }

// Paths returns the paths an operator update writes, in the order given
// (empty for replacements and pipelines, which may touch any field).
func (u *Update) Paths() []string { return u.paths }

// Replacement returns the replacement document of a replacement update.
func (u *Update) Replacement() bson.D { return u.replacement }

// Parse parses an update: an operator document, a replacement document or
// a pipeline (bson.A of stages).
func Parse(update any, opts Options) (*Update, error) {
	switch x := update.(type) {
	case bson.A:
		return parsePipeline(x, opts)
	case []any:
		return parsePipeline(bson.A(x), opts)
	case bson.D:
		if len(x) > 0 && strings.HasPrefix(x[0].Key, "$") {
			return parseOperators(x, opts)
		}
		return parseReplacement(x, opts)
	case bson.M:
		d := make(bson.D, 0, len(x))
		for k, v := range x {
			d = append(d, bson.E{Key: k, Value: v})
		}
		sort.Slice(d, func(i, j int) bool { return d[i].Key < d[j].Key })
		return Parse(d, opts)
	}
	return nil, mongoerr.Newf(mongoerr.FailedToParse, "Update argument must be either an object or an array")
}

func parseReplacement(d bson.D, opts Options) (*Update, error) {
	if opts.Multi {
		return nil, mongoerr.New(mongoerr.FailedToParse, "multi update is not supported for replacement-style update")
	}
	for _, e := range d {
		if strings.HasPrefix(e.Key, "$") {
			return nil, mongoerr.Newf(mongoerr.DollarPrefixedFieldName, "The dollar ($) prefixed field '%s' in '%s' is not valid for storage.", e.Key, e.Key)
		}
	}
	if len(opts.ArrayFilters) > 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "arrayFilters may not be specified for replacement-style updates")
	}
	return &Update{kind: Replacement, replacement: d}, nil
}

// parseArrayFilters parses the arrayFilters option into one filter per
// identifier.
func parseArrayFilters(list []bson.D, opts Options) (map[string]*query.Filter, error) {
	out := map[string]*query.Filter{}
	for _, f := range list {
		if len(f) == 0 {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot use an expression without a top-level field name in arrayFilters")
		}
		id := ""
		for _, e := range f {
			top, _, _ := strings.Cut(e.Key, ".")
			if strings.HasPrefix(top, "$") {
				return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot use an expression without a top-level field name in arrayFilters")
			}
			if id == "" {
				id = top
			} else if id != top {
				return nil, mongoerr.Newf(mongoerr.FailedToParse, "Error parsing array filter :: caused by :: Expected a single top-level field name, found '%s' and '%s'", id, top)
			}
		}
		if !validIdentifier(id) {
			return nil, mongoerr.Newf(mongoerr.BadValue, "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '%s'", id)
		}
		if _, dup := out[id]; dup {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "Found multiple array filters with the same top-level field name %s", id)
		}
		flt, err := query.ParseFilterWith(f, query.ParseOptions{Expr: opts.ExprCompiler})
		if err != nil {
			return nil, err
		}
		out[id] = flt
	}
	return out, nil
}

func validIdentifier(id string) bool {
	if id == "" || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// modifiers lists the update operators.
var modifiers = map[string]bool{
	"$set": true, "$unset": true, "$inc": true, "$mul": true, "$min": true, "$max": true,
	"$rename": true, "$setOnInsert": true, "$currentDate": true, "$push": true,
	"$addToSet": true, "$pop": true, "$pull": true, "$pullAll": true,
}

func parseOperators(d bson.D, opts Options) (*Update, error) {
	u := &Update{kind: Operators, root: &node{children: map[string]*node{}}}
	filters, err := parseArrayFilters(opts.ArrayFilters, opts)
	if err != nil {
		return nil, err
	}
	u.filters = filters
	used := map[string]bool{}
	for _, e := range d {
		if !modifiers[e.Key] {
			if e.Key == "$bit" {
				return nil, mongoerr.New(mongoerr.NotImplemented, "$bit is not supported")
			}
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", e.Key)
		}
		fields, ok := e.Value.(bson.D)
		if !ok {
			if m, isM := e.Value.(bson.M); isM {
				fields = make(bson.D, 0, len(m))
				for k, v := range m {
					fields = append(fields, bson.E{Key: k, Value: v})
				}
			} else {
				return nil, mongoerr.Newf(mongoerr.FailedToParse, "Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s: %s}", aggregate.TypeName(e.Value), e.Key, aggregate.FormatValue(e.Value))
			}
		}
		if len(fields) == 0 {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "'%s' is empty. You must specify a field like so: {%s: {<field>: ...}}", e.Key, e.Key)
		}
		for _, f := range fields {
			if err := u.addOp(e.Key, f.Key, f.Value, opts, used); err != nil {
				return nil, err
			}
		}
	}
	u.root.finish()
	for id := range u.filters {
		if !used[id] {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "The array filter for identifier '%s' was not used in the update %s", id, aggregate.FormatValue(d))
		}
	}
	return u, nil
}

// checkPath validates an update path and returns its components.
func (u *Update) checkPath(op, path string, used map[string]bool) ([]string, error) {
	if path == "" {
		return nil, mongoerr.New(mongoerr.EmptyFieldName, "An empty update path is not valid.")
	}
	parts := strings.Split(path, ".")
	dollars := 0
	for i, p := range parts {
		switch {
		case p == "":
			return nil, mongoerr.Newf(mongoerr.EmptyFieldName, "The update path '%s' contains an empty field name, which is not allowed.", path)
		case p == "$":
			if i == 0 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "Cannot have positional (i.e. '$') element in the first position in path '%s'", path)
			}
			dollars++
			if dollars > 1 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "Too many positional (i.e. '$') elements found in path '%s'", path)
			}
			u.positional = true
		case p == "$[]":
			if i == 0 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '%s'", path)
			}
		case strings.HasPrefix(p, "$[") && strings.HasSuffix(p, "]"):
			if i == 0 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '%s'", path)
			}
			id := p[2 : len(p)-1]
			if _, ok := u.filters[id]; !ok {
				return nil, mongoerr.Newf(mongoerr.BadValue, "No array filter found for identifier '%s' in path '%s'", id, path)
			}
			used[id] = true
		case strings.HasPrefix(p, "$"):
			return nil, mongoerr.Newf(mongoerr.DollarPrefixedFieldName, "The dollar ($) prefixed field '%s' in '%s' is not valid for storage.", p, path)
		}
	}
	return parts, nil
}

// addOp parses one {path: arg} of operator op and inserts it in the tree.
func (u *Update) addOp(op, path string, arg any, opts Options, used map[string]bool) error {
	parts, err := u.checkPath(op, path, used)
	if err != nil {
		return err
	}
	l, err := parseLeaf(op, path, arg, opts)
	if err != nil {
		return err
	}
	if op == "$rename" {
		to := arg.(string)
		if strings.Contains(path, "$") {
			return mongoerr.Newf(mongoerr.BadValue, "The source field for $rename may not be dynamic: %s", path)
		}
		if strings.Contains(to, "$") {
			return mongoerr.Newf(mongoerr.BadValue, "The destination field for $rename may not be dynamic: %s", to)
		}
		toParts, err := u.checkPath(op, to, used)
		if err != nil {
			return err
		}
		if err := u.root.insert(parts, path, l); err != nil {
			return err
		}
		dest := &leaf{op: "$rename.to", path: to, from: parts}
		l.dest = dest
		u.renames = append(u.renames, dest)
		u.paths = append(u.paths, path, to)
		return u.root.insert(toParts, to, dest)
	}
	u.paths = append(u.paths, path)
	return u.root.insert(parts, path, l)
}

// node is one component of the update tree.
type node struct {
	children map[string]*node
	leaf     *leaf
	path     string
	// keys holds the children in update order, fixed by finish.
	keys []string
}

// finish fixes the child order of n and its descendants once parsing is
// done, so Apply does not sort on every call.
func (n *node) finish() {
	n.keys = n.orderKeys()
	for _, c := range n.children {
		c.finish()
	}
}

// insert adds leaf l at parts, detecting conflicts with earlier paths.
func (n *node) insert(parts []string, full string, l *leaf) error {
	cur := n
	for i, p := range parts {
		if cur.leaf != nil {
			return conflict(full, cur.path)
		}
		child, ok := cur.children[p]
		if !ok {
			child = &node{children: map[string]*node{}, path: strings.Join(parts[:i+1], ".")}
			cur.children[p] = child
		}
		cur = child
	}
	if cur.leaf != nil || len(cur.children) > 0 {
		return conflict(full, cur.path)
	}
	cur.leaf = l
	return nil
}

func conflict(path, at string) error {
	return mongoerr.Newf(mongoerr.ConflictingUpdateOperators, "Updating the path '%s' would create a conflict at '%s'", path, at)
}

// sortedKeys returns the children in MongoDB's update order.
func (n *node) sortedKeys() []string {
	if n.keys != nil || len(n.children) == 0 {
		return n.keys
	}
	return n.orderKeys()
}

// orderKeys sorts the children: numeric names numerically, then the rest
// lexicographically.
func (n *node) orderKeys() []string {
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		ai, aerr := strconv.Atoi(a)
		bi, berr := strconv.Atoi(b)
		if aerr == nil && berr == nil && isDigits(a) && isDigits(b) {
			return ai < bi
		}
		return a < b
	})
	return keys
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// creates reports whether applying n may create fields where none exist.
func (n *node) creates(insert bool) bool {
	if n.leaf != nil {
		return n.leaf.creates(insert)
	}
	for _, c := range n.children {
		if c.creates(insert) {
			return true
		}
	}
	return false
}

// hasArrayUpdates reports whether n's children include "$[]" or "$[id]".
func (n *node) hasArrayUpdates() bool {
	for k := range n.children {
		if strings.HasPrefix(k, "$[") {
			return true
		}
	}
	return false
}
