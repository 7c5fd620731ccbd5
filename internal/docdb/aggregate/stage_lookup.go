package aggregate

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

func init() {
	stageParsers["$lookup"] = parseLookup
	stageParsers["$graphLookup"] = parseGraphLookup
}

// namespace parses a "from"/"into" value: a collection name or
// {db, coll}.
func namespace(stageName, field string, v any) (db, coll string, err error) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "", "", mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid %s namespace: empty collection name", stageName)
		}
		return "", x, nil
	case bson.D:
		for _, e := range x {
			s, ok := e.Value.(string)
			if !ok {
				return "", "", mongoerr.Newf(mongoerr.FailedToParse, "%s '%s.%s' must be a string", stageName, field, e.Key)
			}
			switch e.Key {
			case "db":
				db = s
			case "coll":
				coll = s
			default:
				return "", "", mongoerr.Newf(mongoerr.FailedToParse, "BSON field '%s.%s' is an unknown field.", field, e.Key)
			}
		}
		if coll == "" {
			return "", "", mongoerr.Newf(mongoerr.FailedToParse, "%s '%s' requires 'coll'", stageName, field)
		}
		return db, coll, nil
	}
	return "", "", mongoerr.Newf(mongoerr.FailedToParse, "%s '%s' must be a string or an object, found type %s", stageName, field, TypeName(v))
}

// lookupStage joins documents of another collection.
type lookupStage struct {
	db, from     string
	localField   string
	foreignField string
	as           []string
	letNames     []string
	letExprs     []evalFn
	pipeline     bson.A
	sub          *Pipeline
	hasPipeline  bool
}

func (s *lookupStage) name() string { return "$lookup" }

func parseLookup(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "the $lookup stage specification must be an object, but found %s", TypeName(arg))
	}
	s := &lookupStage{}
	var asStr string
	var hasLocal, hasForeign, hasFrom bool
	c := newCompiler(opts.Vars)
	for _, e := range d {
		switch e.Key {
		case "from":
			db, coll, err := namespace("$lookup", "from", e.Value)
			if err != nil {
				return nil, err
			}
			s.db, s.from, hasFrom = db, coll, true
		case "as", "localField", "foreignField":
			str, ok := e.Value.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.FailedToParse, "$lookup argument '%s: %s' must be a string, is type %s", e.Key, fmtValue(e.Value), TypeName(e.Value))
			}
			switch e.Key {
			case "as":
				asStr = str
			case "localField":
				s.localField, hasLocal = str, true
			case "foreignField":
				s.foreignField, hasForeign = str, true
			}
		case "let":
			ld, ok := asDoc(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.FailedToParse, "$lookup argument 'let: %s' must be an object, is type %s", fmtValue(e.Value), TypeName(e.Value))
			}
			for _, le := range ld {
				if err := validateVarName(le.Key); err != nil {
					return nil, err
				}
				f, err := c.compile(le.Value)
				if err != nil {
					return nil, err
				}
				s.letNames = append(s.letNames, le.Key)
				s.letExprs = append(s.letExprs, f)
			}
		case "pipeline":
			a, ok := asArray(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.FailedToParse, "$lookup argument 'pipeline' must be an array, is type %s", TypeName(e.Value))
			}
			s.pipeline, s.hasPipeline = a, true
		default:
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "unknown argument to $lookup: %s", e.Key)
		}
	}
	if asStr == "" {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "must specify 'as' field for a $lookup")
	}
	if !hasFrom {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "missing 'from' option to $lookup stage specification: %s", fmtValue(d))
	}
	if hasLocal != hasForeign {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	}
	if !hasLocal && !s.hasPipeline {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	}
	if len(s.letNames) > 0 && !s.hasPipeline {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "$lookup with 'let' must also specify 'pipeline'")
	}
	parts, err := splitPath(asStr)
	if err != nil {
		return nil, err
	}
	s.as = parts
	if s.hasPipeline {
		subOpts := Options{Vars: append(append([]string{}, opts.Vars...), s.letNames...), Now: opts.Now, inLookup: true}
		sub, err := Parse(s.pipeline, subOpts)
		if err != nil {
			return nil, err
		}
		s.sub = sub
	}
	return s, nil
}

// scanAll reads the documents of db.coll matching filter, strings compared
// by the collation c (nil: bytewise). With recheck the filter is applied
// again here, so the resolver may over-approximate; without, it is only the
// resolver's hint (the leading $match of a sub-pipeline that runs next).
func scanAll(ctx context.Context, env *Env, db, coll string, filter bson.D, recheck bool, c *collation.Collator) ([]bson.D, error) {
	if env.Resolver == nil {
		return nil, mongoerr.New(mongoerr.CommandNotSupported, "this pipeline reads another collection but no resolver is available")
	}
	if db == "" {
		db = env.DB
	}
	var f *query.Filter
	if recheck && len(filter) > 0 {
		spec := filter
		if c != nil {
			spec = collation.Filter(c, filter)
		}
		var err error
		if f, err = query.ParseFilter(spec); err != nil {
			return nil, err
		}
	}
	it, err := env.Resolver.Scan(ctx, db, coll, filter, c)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []bson.D
	for {
		d, ok, err := it.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		md := d
		if f != nil && c != nil {
			md = c.Matchable(d)
		}
		if f == nil || f.Match(md) {
			out = append(out, d)
		}
	}
}

// localValues returns the values of the local field to match: each
// element of an array, or the value itself (null when missing).
func localValues(d bson.D, path string) bson.A {
	v := GetPath(d, path)
	if IsMissing(v) {
		return bson.A{nil}
	}
	if a, ok := v.(bson.A); ok {
		out := bson.A{}
		for _, e := range a {
			if ea, ok := e.(bson.A); ok {
				out = append(out, ea...)
				continue
			}
			out = append(out, e)
		}
		if len(out) == 0 {
			return bson.A{bson.A{}}
		}
		return out
	}
	return bson.A{v}
}

// equalityFilter builds {field: {$in: values}} without regexes, which $in
// would treat as patterns.
func equalityFilter(field string, values bson.A) bson.D {
	var plain bson.A
	var ors bson.A
	for _, v := range values {
		if _, isRe := v.(bson.Regex); isRe {
			ors = append(ors, bson.D{{Key: field, Value: bson.D{{Key: "$eq", Value: v}}}})
			continue
		}
		plain = append(plain, v)
	}
	if len(ors) == 0 {
		return bson.D{{Key: field, Value: bson.D{{Key: "$in", Value: plain}}}}
	}
	if len(plain) > 0 {
		ors = append(ors, bson.D{{Key: field, Value: bson.D{{Key: "$in", Value: plain}}}})
	}
	return bson.D{{Key: "$or", Value: ors}}
}

func (s *lookupStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	return mapIter(in, func(ctx context.Context, d bson.D) (bson.D, bool, error) {
		var matched []bson.D
		if s.localField != "" {
			filter := equalityFilter(s.foreignField, localValues(d, s.localField))
			var err error
			if matched, err = scanAll(ctx, env, s.db, s.from, filter, true, env.Collation); err != nil {
				return nil, false, err
			}
		}
		inner := env.Vars
		if s.hasPipeline {
			vars := env.Vars.WithRoot(d)
			for i, f := range s.letExprs {
				x, err := f(vars, d)
				if err != nil {
					return nil, false, err
				}
				inner = inner.Bind(s.letNames[i], arrayValue(x))
			}
		}
		if s.localField == "" {
			var err error
			if matched, err = scanAll(ctx, env, s.db, s.from, scanHint(s.sub, inner), false, env.Collation); err != nil {
				return nil, false, err
			}
		}
		if s.hasPipeline {
			sub := *env
			sub.Vars = inner
			var err error
			if matched, err = s.sub.Collect(ctx, matched, sub); err != nil {
				return nil, false, err
			}
		}
		arr := make(bson.A, len(matched))
		for i, m := range matched {
			arr[i] = m
		}
		return setNested(d, s.as, arr), true, nil
	}), nil
}

// graphLookupStage does a recursive search over another collection.
type graphLookupStage struct {
	db, from       string
	startWith      evalFn
	connectFrom    string
	connectTo      string
	as             []string
	maxDepth       int64
	depthField     []string
	restrict       bson.D
	restrictFilter *query.Filter
}

func (s *graphLookupStage) name() string { return "$graphLookup" }

func parseGraphLookup(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "the $graphLookup stage specification must be an object, but found %s", TypeName(arg))
	}
	s := &graphLookupStage{maxDepth: -1}
	c := newCompiler(opts.Vars)
	var asStr string
	var hasFrom bool
	for _, e := range d {
		switch e.Key {
		case "from":
			db, coll, err := namespace("$graphLookup", "from", e.Value)
			if err != nil {
				return nil, err
			}
			s.db, s.from, hasFrom = db, coll, true
		case "startWith":
			f, err := c.compile(e.Value)
			if err != nil {
				return nil, err
			}
			s.startWith = f
		case "connectFromField", "connectToField", "as", "depthField":
			str, ok := e.Value.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40103, "expected string as argument for %s, found: %s", e.Key, fmtValue(e.Value))
			}
			if strings.HasPrefix(str, "$") {
				return nil, mongoerr.Newf(mongoerr.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
			}
			if _, err := splitPath(str); err != nil {
				return nil, err
			}
			switch e.Key {
			case "connectFromField":
				s.connectFrom = str
			case "connectToField":
				s.connectTo = str
			case "as":
				asStr = str
			case "depthField":
				s.depthField = strings.Split(str, ".")
			}
		case "maxDepth":
			n, ok := nonNegInt(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40100, "maxDepth must be numeric, found type: %s", TypeName(e.Value))
			}
			if n < 0 {
				return nil, mongoerr.Newf(mongoerr.Location40101, "maxDepth requires a nonnegative argument, found: %d", n)
			}
			s.maxDepth = n
		case "restrictSearchWithMatch":
			rd, ok := asDoc(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40185, "expected an object as specification for 'restrictSearchWithMatch' field, got %s", TypeName(e.Value))
			}
			f, err := query.ParseFilter(rd)
			if err != nil {
				return nil, err
			}
			s.restrict, s.restrictFilter = rd, f
		default:
			return nil, mongoerr.Newf(mongoerr.Location40104, "Unknown argument to $graphLookup: %s", e.Key)
		}
	}
	if !hasFrom || s.startWith == nil || s.connectFrom == "" || s.connectTo == "" || asStr == "" {
		var missing []string
		for k, ok := range map[string]bool{"from": hasFrom, "startWith": s.startWith != nil, "connectFromField": s.connectFrom != "", "connectToField": s.connectTo != "", "as": asStr != ""} {
			if !ok {
				missing = append(missing, k)
			}
		}
		return nil, mongoerr.Newf(mongoerr.Location40105, "$graphLookup requires 'from', 'startWith', 'connectFromField', 'connectToField' and 'as' to be specified (missing %s)", strings.Join(missing, ", "))
	}
	s.as = strings.Split(asStr, ".")
	return s, nil
}

func (s *graphLookupStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	return mapIter(in, func(ctx context.Context, d bson.D) (bson.D, bool, error) {
		start, err := s.startWith(env.Vars.WithRoot(d), d)
		if err != nil {
			return nil, false, err
		}
		frontier := bson.A{}
		if a, ok := start.(bson.A); ok {
			frontier = append(frontier, a...)
		} else if !IsMissing(start) {
			frontier = append(frontier, start)
		}
		visited := map[string]bool{}
		results := bson.A{}
		for depth := int64(0); len(frontier) > 0 && (s.maxDepth < 0 || depth <= s.maxDepth); depth++ {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
			filter := equalityFilter(s.connectTo, frontier)
			if s.restrict != nil {
				filter = bson.D{{Key: "$and", Value: bson.A{filter, s.restrict}}}
			}
			found, err := scanAll(ctx, env, s.db, s.from, filter, true, env.Collation)
			if err != nil {
				return nil, false, err
			}
			next := bson.A{}
			for _, fd := range found {
				id, _ := lookupField(fd, "_id")
				key := canonicalKey(id)
				if visited[key] {
					continue
				}
				visited[key] = true
				out := fd
				if s.depthField != nil {
					out = setNested(fd, s.depthField, depth)
				}
				results = append(results, out)
				v := GetPath(fd, s.connectFrom)
				if a, ok := v.(bson.A); ok {
					next = append(next, a...)
				} else if !IsMissing(v) {
					next = append(next, v)
				}
			}
			frontier = next
		}
		return setNested(d, s.as, results), true, nil
	}), nil
}
