package aggregate

import (
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

func init() {
	register(compileRegex, "$regexMatch", "$regexFind", "$regexFindAll")
	register(compileReplace, "$replaceOne", "$replaceAll")
	register(compileSortArray, "$sortArray")
	register(compileZip, "$zip")
	register(compileDateTrunc, "$dateTrunc")
}

// compileRegex compiles $regexMatch, $regexFind and $regexFindAll.
func compileRegex(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"input", "regex", "options"}, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := args["input"]; !ok {
		return nil, mongoerr.Newf(mongoerr.Location31022, "%s requires 'input' parameter", name)
	}
	if _, ok := args["regex"]; !ok {
		return nil, mongoerr.Newf(mongoerr.Location31023, "%s requires 'regex' parameter", name)
	}
	fs := map[string]evalFn{}
	for k, v := range args {
		f, err := c.compile(v)
		if err != nil {
			return nil, err
		}
		fs[k] = f
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := fs["input"](v, doc)
		if err != nil {
			return nil, err
		}
		rv, err := fs["regex"](v, doc)
		if err != nil {
			return nil, err
		}
		var pattern, opts string
		switch r := rv.(type) {
		case string:
			pattern = r
		case bson.Regex:
			pattern, opts = r.Pattern, r.Options
		default:
			if !nullish(rv) {
				return nil, mongoerr.Newf(mongoerr.Location51105, "%s needs 'regex' to be of type string or regex", name)
			}
		}
		if f, ok := fs["options"]; ok {
			ov, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			if os, ok := ov.(string); ok {
				if opts != "" && os != "" {
					return nil, mongoerr.Newf(mongoerr.Location51075, "%s: found regex option(s) specified in both 'regex' and 'option' fields", name)
				}
				opts += os
			} else if !nullish(ov) {
				return nil, mongoerr.Newf(mongoerr.Location51106, "%s needs 'options' to be of type string", name)
			}
		}
		noMatch := func() any {
			switch name {
			case "$regexMatch":
				return false
			case "$regexFind":
				return nil
			}
			return bson.A{}
		}
		if nullish(in) || nullish(rv) {
			return noMatch(), nil
		}
		s, ok := in.(string)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location51104, "%s needs 'input' to be of type string", name)
		}
		re, err := query.CompileRegex(pattern, opts)
		if err != nil {
			return nil, err
		}
		if name == "$regexMatch" {
			return re.MatchString(s), nil
		}
		limit := 1
		if name == "$regexFindAll" {
			limit = -1
		}
		out := bson.A{}
		for _, m := range re.FindAllStringSubmatchIndex(s, limit) {
			captures := bson.A{}
			for g := 1; g < len(m)/2; g++ {
				if m[2*g] < 0 {
					captures = append(captures, nil)
				} else {
					captures = append(captures, s[m[2*g]:m[2*g+1]])
				}
			}
			out = append(out, bson.D{
				{Key: "match", Value: s[m[0]:m[1]]},
				{Key: "idx", Value: int32(utf8.RuneCountInString(s[:m[0]]))},
				{Key: "captures", Value: captures},
			})
		}
		if name == "$regexFind" {
			if len(out) == 0 {
				return nil, nil
			}
			return out[0], nil
		}
		return out, nil
	}, nil
}

// compileReplace compiles $replaceOne and $replaceAll.
func compileReplace(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"input", "find", "replacement"}, nil)
	if err != nil {
		return nil, err
	}
	fs := map[string]evalFn{}
	for _, k := range []string{"input", "find", "replacement"} {
		e, ok := args[k]
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location51083, "%s requires '%s' to be specified", name, k)
		}
		f, err := c.compile(e)
		if err != nil {
			return nil, err
		}
		fs[k] = f
	}
	return func(v *Vars, doc bson.D) (any, error) {
		var vals [3]string
		null := false
		for i, k := range []string{"input", "find", "replacement"} {
			x, err := fs[k](v, doc)
			if err != nil {
				return nil, err
			}
			if nullish(x) {
				null = true
				continue
			}
			s, ok := x.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location51746, "%s requires that '%s' be a string, found: %s", name, k, fmtValue(x))
			}
			vals[i] = s
		}
		if null {
			return nil, nil
		}
		if name == "$replaceOne" {
			return strings.Replace(vals[0], vals[1], vals[2], 1), nil
		}
		return strings.ReplaceAll(vals[0], vals[1], vals[2]), nil
	}, nil
}

// compileSortArray compiles $sortArray: {input, sortBy: 1|-1|{field: 1}}.
func compileSortArray(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"input", "sortBy"}, nil)
	if err != nil {
		return nil, err
	}
	in, ok := args["input"]
	if !ok {
		return nil, mongoerr.New(mongoerr.Location2942502, "$sortArray requires 'input' to be specified")
	}
	by, ok := args["sortBy"]
	if !ok {
		return nil, mongoerr.New(mongoerr.Location2942503, "$sortArray requires 'sortBy' to be specified")
	}
	inF, err := c.compile(in)
	if err != nil {
		return nil, err
	}
	var whole int
	var spec *query.Sort
	if isNumber(by) {
		f := toFloat(by)
		if f != 1 && f != -1 {
			return nil, mongoerr.New(mongoerr.Location2942505, "$sortArray requires sortBy to be either 1 or -1 when sorting by value")
		}
		whole = int(f)
	} else if d, ok := asDoc(by); ok && len(d) > 0 {
		if spec, err = query.ParseSort(d); err != nil {
			return nil, err
		}
	} else {
		return nil, mongoerr.New(mongoerr.Location2942504, "$sortArray requires sortBy to be an object or a number")
	}
	return func(v *Vars, doc bson.D) (any, error) {
		x, err := inF(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(x) {
			return nil, nil
		}
		a, ok := asArray(x)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location2942504, "The input argument to $sortArray must be an array, but was of type: %s", TypeName(x))
		}
		// Strings sort by the collation, as MongoDB's $sortArray compares
		// by the expression context's collator.
		coll := v.collation()
		if spec == nil {
			keys := make([]any, len(a))
			for i, e := range a {
				keys[i] = e
				if coll != nil {
					keys[i] = coll.Value(e)
				}
			}
			return sortedBy(a, func(i, j int) bool { return compare(keys[i], keys[j])*whole < 0 }), nil
		}
		srt := spec
		if coll != nil {
			srt = spec.WithCollation(coll)
		}
		keys := make([][]any, len(a))
		for i, e := range a {
			d, ok := e.(bson.D)
			if !ok {
				d = bson.D{}
			}
			keys[i] = srt.KeyOf(d)
		}
		return sortedBy(a, func(i, j int) bool { return srt.CompareKeys(keys[i], keys[j]) < 0 }), nil
	}, nil
}

// sortedBy returns the elements of a in the stable order of less, which
// compares the elements' indexes in a.
func sortedBy(a bson.A, less func(i, j int) bool) bson.A {
	idx := make([]int, len(a))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return less(idx[x], idx[y]) })
	out := make(bson.A, len(a))
	for i, j := range idx {
		out[i] = a[j]
	}
	return out
}

// compileZip compiles $zip: {inputs, useLongestLength, defaults}.
func compileZip(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"inputs", "useLongestLength", "defaults"}, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := args["inputs"]; !ok {
		return nil, mongoerr.New(mongoerr.Location34465, "$zip requires at least one input array")
	}
	inputs, err := c.compile(args["inputs"])
	if err != nil {
		return nil, err
	}
	longest, _ := args["useLongestLength"].(bool)
	var defaults evalFn
	if d, ok := args["defaults"]; ok {
		if !longest {
			return nil, mongoerr.New(mongoerr.Location34466, "cannot specify defaults unless useLongestLength is true")
		}
		if defaults, err = c.compile(d); err != nil {
			return nil, err
		}
	}
	return func(v *Vars, doc bson.D) (any, error) {
		x, err := inputs(v, doc)
		if err != nil {
			return nil, err
		}
		lists, ok := asArray(x)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location34461, "inputs must be an array of expressions, found %s", TypeName(x))
		}
		arrays := make([]bson.A, len(lists))
		n := -1
		for i, l := range lists {
			if nullish(l) {
				return nil, nil
			}
			a, ok := asArray(l)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location34468, "$zip found a non-array expression in input: %s", fmtValue(l))
			}
			arrays[i] = a
			if n < 0 || (longest && len(a) > n) || (!longest && len(a) < n) {
				n = len(a)
			}
		}
		var defs bson.A
		if defaults != nil {
			dv, err := defaults(v, doc)
			if err != nil {
				return nil, err
			}
			if defs, ok = asArray(dv); !ok || len(defs) != len(arrays) {
				return nil, mongoerr.New(mongoerr.Location34467, "defaults and inputs must have the same length")
			}
		}
		out := bson.A{}
		for i := 0; i < n; i++ {
			row := bson.A{}
			for j, a := range arrays {
				switch {
				case i < len(a):
					row = append(row, a[i])
				case defs != nil:
					row = append(row, defs[j])
				default:
					row = append(row, nil)
				}
			}
			out = append(out, row)
		}
		return out, nil
	}, nil
}

// compileDateTrunc compiles $dateTrunc: {date, unit, binSize, timezone,
// startOfWeek}.
func compileDateTrunc(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"date", "unit", "binSize", "timezone", "startOfWeek"}, nil)
	if err != nil {
		return nil, err
	}
	for _, req := range []struct {
		code mongoerr.Code
		arg  string
	}{{mongoerr.Location5439014, "date"}, {mongoerr.Location5439015, "unit"}} {
		if _, ok := args[req.arg]; !ok {
			return nil, mongoerr.Newf(req.code, "$dateTrunc requires '%s' parameter", req.arg)
		}
	}
	fs := map[string]evalFn{}
	for k, e := range args {
		f, err := c.compile(e)
		if err != nil {
			return nil, err
		}
		fs[k] = f
	}
	return func(v *Vars, doc bson.D) (any, error) {
		vals := map[string]any{}
		for k, f := range fs {
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			if nullish(x) {
				return nil, nil
			}
			vals[k] = x
		}
		t, ok := coerceDate(vals["date"])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location5439012, "$dateTrunc requires 'date' to be a date, but got %s", TypeName(vals["date"]))
		}
		unit, err := parseUnit(name, vals["unit"])
		if err != nil {
			return nil, err
		}
		bin := int64(1)
		if b, ok := vals["binSize"]; ok {
			if !isIntegral(b) || toInt64(b) <= 0 {
				return nil, mongoerr.New(mongoerr.Location5439017, "$dateTrunc requires 'binSize' to be greater than 0, but got value 0")
			}
			bin = toInt64(b)
		}
		loc := time.UTC
		if tz, ok := vals["timezone"]; ok {
			if loc, err = parseTimezone(tz); err != nil {
				return nil, err
			}
		}
		sow := time.Sunday
		if s, ok := vals["startOfWeek"]; ok && unit == "week" {
			str, _ := s.(string)
			found := false
			for wd := time.Sunday; wd <= time.Saturday; wd++ {
				full := strings.ToLower(wd.String())
				if strings.ToLower(str) == full || strings.ToLower(str) == full[:3] {
					sow, found = wd, true
				}
			}
			if !found {
				return nil, mongoerr.Newf(mongoerr.Location5439016, "$dateTrunc parameter 'startOfWeek' value cannot be recognized as a day of a week: %s", str)
			}
		}
		return bson.NewDateTimeFromTime(truncateDate(t.In(loc), unit, bin, sow)), nil
	}, nil
}

// truncateDate rounds t down to a multiple of bin units counted from the
// reference 2000-01-01 (a Saturday; weeks from the first startOfWeek on or
// after it), as MongoDB's $dateTrunc.
func truncateDate(t time.Time, unit string, bin int64, sow time.Weekday) time.Time {
	loc := t.Location()
	ref := time.Date(2000, 1, 1, 0, 0, 0, 0, loc)
	floorDiv := func(a, b int64) int64 {
		q := a / b
		if a%b != 0 && (a < 0) != (b < 0) {
			q--
		}
		return q
	}
	switch unit {
	case "year", "quarter", "month":
		months := int64(1)
		if unit == "year" {
			months = 12
		} else if unit == "quarter" {
			months = 3
		}
		step := months * bin
		elapsed := int64(t.Year()-2000)*12 + int64(t.Month()-1)
		m := floorDiv(elapsed, step) * step
		return time.Date(2000+int(floorDiv(m, 12)), time.Month(m-floorDiv(m, 12)*12+1), 1, 0, 0, 0, 0, loc)
	case "week", "day":
		days := bin
		start := ref
		if unit == "week" {
			days *= 7
			for start.Weekday() != sow {
				start = start.AddDate(0, 0, 1)
			}
		}
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		elapsed := int64(day.Sub(start).Round(time.Hour).Hours()) / 24
		n := floorDiv(elapsed, days) * days
		return start.AddDate(0, 0, int(n))
	}
	var d time.Duration
	switch unit {
	case "hour":
		d = time.Hour
	case "minute":
		d = time.Minute
	case "second":
		d = time.Second
	default:
		d = time.Millisecond
	}
	step := int64(d) / int64(time.Millisecond) * bin
	_, off := t.Zone()
	local := t.UnixMilli() + int64(off)*1000
	refLocal := int64(946684800000)
	n := floorDiv(local-refLocal, step) * step
	return time.UnixMilli(refLocal + n - int64(off)*1000).In(loc)
}
