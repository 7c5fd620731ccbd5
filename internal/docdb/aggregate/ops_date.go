package aggregate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Olson time zone names for the timezone arguments.

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	for _, n := range []string{"$year", "$month", "$dayOfMonth", "$hour", "$minute", "$second",
		"$millisecond", "$dayOfWeek", "$dayOfYear", "$week", "$isoWeek", "$isoWeekYear", "$isoDayOfWeek"} {
		register(compileDatePart, n)
	}
	register(compileDateToString, "$dateToString")
	register(compileDateArith, "$dateAdd", "$dateSubtract")
	register(compileDateDiff, "$dateDiff")
}

// isDate reports whether v is a BSON date.
func isDate(v any) bool {
	switch v.(type) {
	case bson.DateTime, time.Time:
		return true
	}
	return false
}

// asDateTime returns v as a BSON date.
func asDateTime(v any) bson.DateTime {
	switch x := v.(type) {
	case bson.DateTime:
		return x
	case time.Time:
		return bson.NewDateTimeFromTime(x)
	}
	return 0
}

// coerceDate converts a date, timestamp or ObjectId to a time, as MongoDB's
// date operators accept.
func coerceDate(v any) (time.Time, bool) {
	switch x := v.(type) {
	case bson.DateTime:
		return time.UnixMilli(int64(x)).UTC(), true
	case time.Time:
		return x.UTC(), true
	case bson.Timestamp:
		return time.Unix(int64(x.T), 0).UTC(), true
	case bson.ObjectID:
		return x.Timestamp().UTC(), true
	}
	return time.Time{}, false
}

// formatISODate renders a date as $toString does.
func formatISODate(d bson.DateTime) string {
	return time.UnixMilli(int64(d)).UTC().Format("2006-01-02T15:04:05.000Z")
}

var offsetRE = regexp.MustCompile(`^([+-])(\d{2}):?(\d{2})?$`)

// parseTimezone parses an Olson name or a UTC offset.
func parseTimezone(v any) (*time.Location, error) {
	s, ok := v.(string)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40517, "timezone must evaluate to a string, found %s", TypeName(v))
	}
	if m := offsetRE.FindStringSubmatch(s); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi := 0
		if m[3] != "" {
			mi, _ = strconv.Atoi(m[3])
		}
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(s, off), nil
	}
	if s == "" || strings.HasPrefix(s, "/") || strings.Contains(s, "..") {
		return nil, mongoerr.Newf(mongoerr.Location40485, "unrecognized time zone identifier: \"%s\"", s)
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, mongoerr.Newf(mongoerr.Location40485, "unrecognized time zone identifier: \"%s\"", s)
	}
	return loc, nil
}

// dateArg is a compiled {date, timezone} pair.
type dateArg struct {
	date, tz evalFn
}

// eval returns the date in its zone; ok is false when the result is null.
func (a dateArg) eval(name string, v *Vars, doc bson.D) (time.Time, bool, error) {
	dv, err := a.date(v, doc)
	if err != nil {
		return time.Time{}, false, err
	}
	loc := time.UTC
	if a.tz != nil {
		tv, err := a.tz(v, doc)
		if err != nil {
			return time.Time{}, false, err
		}
		if nullish(tv) {
			return time.Time{}, false, nil
		}
		if loc, err = parseTimezone(tv); err != nil {
			return time.Time{}, false, err
		}
	}
	if nullish(dv) {
		return time.Time{}, false, nil
	}
	t, ok := coerceDate(dv)
	if !ok {
		return time.Time{}, false, mongoerr.Newf(mongoerr.Location16006, "can't convert from BSON type %s to Date", TypeName(dv))
	}
	return t.In(loc), true, nil
}

func compileDatePart(c *compiler, name string, arg any) (evalFn, error) {
	var a dateArg
	var err error
	d, isDoc := asDoc(arg)
	if isDoc && (len(d) == 0 || !strings.HasPrefix(d[0].Key, "$")) {
		for _, e := range d {
			f, err := c.compile(e.Value)
			if err != nil {
				return nil, err
			}
			switch e.Key {
			case "date":
				a.date = f
			case "timezone":
				a.tz = f
			default:
				return nil, mongoerr.Newf(mongoerr.Location40535, "unrecognized option to %s: \"%s\"", name, e.Key)
			}
		}
		if a.date == nil {
			return nil, mongoerr.Newf(mongoerr.Location40539, "missing 'date' argument to %s, provided: %s", name, fmtValue(d))
		}
	} else {
		fs, err2 := c.compileArgs(name, arg, 1, 1)
		if err2 != nil {
			return nil, err2
		}
		a.date = fs[0]
	}
	_ = err
	return func(v *Vars, doc bson.D) (any, error) {
		t, ok, err := a.eval(name, v, doc)
		if err != nil || !ok {
			return nil, err
		}
		return int32(datePart(name, t)), nil
	}, nil
}

// datePart extracts one component of t.
func datePart(name string, t time.Time) int {
	switch name {
	case "$year":
		return t.Year()
	case "$month":
		return int(t.Month())
	case "$dayOfMonth":
		return t.Day()
	case "$hour":
		return t.Hour()
	case "$minute":
		return t.Minute()
	case "$second":
		return t.Second()
	case "$millisecond":
		return t.Nanosecond() / 1e6
	case "$dayOfWeek":
		return int(t.Weekday()) + 1
	case "$dayOfYear":
		return t.YearDay()
	case "$week":
		return (t.YearDay() + 6 - int(t.Weekday())) / 7
	case "$isoWeek":
		_, w := t.ISOWeek()
		return w
	case "$isoWeekYear":
		y, _ := t.ISOWeek()
		return y
	case "$isoDayOfWeek":
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		return wd
	}
	return 0
}

const defaultDateFormat = "%Y-%m-%dT%H:%M:%S.%LZ"

func compileDateToString(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location18629, "$dateToString only supports an object as its argument")
	}
	var a dateArg
	var formatF, onNullF evalFn
	for _, e := range d {
		f, err := c.compile(e.Value)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "date":
			a.date = f
		case "timezone":
			a.tz = f
		case "format":
			if s, ok := e.Value.(string); ok {
				if err := validateDateFormat(s); err != nil {
					return nil, err
				}
			}
			formatF = f
		case "onNull":
			onNullF = f
		default:
			return nil, mongoerr.Newf(mongoerr.Location18534, "Unrecognized argument to $dateToString: %s", e.Key)
		}
	}
	if a.date == nil {
		return nil, mongoerr.New(mongoerr.Location18628, "Missing 'date' parameter to $dateToString")
	}
	return func(v *Vars, doc bson.D) (any, error) {
		format := defaultDateFormat
		if formatF != nil {
			fv, err := formatF(v, doc)
			if err != nil {
				return nil, err
			}
			if nullish(fv) {
				return nil, nil
			}
			fs, ok := fv.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location18533, "$dateToString requires that 'format' be a string, found: %s with value %s", TypeName(fv), fmtValue(fv))
			}
			if err := validateDateFormat(fs); err != nil {
				return nil, err
			}
			format = fs
		}
		dv, err := a.date(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(dv) {
			if onNullF != nil {
				return onNullF(v, doc)
			}
			return nil, nil
		}
		t, ok, err := a.eval(name, v, doc)
		if err != nil || !ok {
			return nil, err
		}
		return formatDate(format, t), nil
	}, nil
}

// validateDateFormat checks the % directives of a format string.
func validateDateFormat(f string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i+1 >= len(f) {
			return mongoerr.New(mongoerr.Location18535, "Unmatched '%' at end of format string")
		}
		i++
		if !strings.ContainsRune("dGHjLmMSwuUVYzZbB%", rune(f[i])) {
			return mongoerr.Newf(mongoerr.Location18536, "Invalid format character '%%%c' in format string", f[i])
		}
	}
	return nil
}

// formatDate renders t with MongoDB's % directives.
func formatDate(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'G':
			y, _ := t.ISOWeek()
			fmt.Fprintf(&b, "%04d", y)
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'L':
			fmt.Fprintf(&b, "%03d", t.Nanosecond()/1e6)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday())+1)
		case 'u':
			fmt.Fprintf(&b, "%d", datePart("$isoDayOfWeek", t))
		case 'U':
			fmt.Fprintf(&b, "%02d", datePart("$week", t))
		case 'V':
			_, w := t.ISOWeek()
			fmt.Fprintf(&b, "%02d", w)
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'z':
			_, off := t.Zone()
			sign := '+'
			if off < 0 {
				sign, off = '-', -off
			}
			fmt.Fprintf(&b, "%c%02d%02d", sign, off/3600, off%3600/60)
		case 'Z':
			_, off := t.Zone()
			fmt.Fprintf(&b, "%d", off/60)
		case 'b':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case '%':
			b.WriteByte('%')
		}
	}
	return b.String()
}

// parseDateString parses the ISO-8601 forms $toDate accepts.
func parseDateString(s string) (bson.DateTime, error) {
	layouts := []string{
		"2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05.000Z0700",
		"2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.000", "2006-01-02T15:04:05", "2006-01-02T15:04",
		"2006-01-02 15:04:05.000", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02", time.RFC3339Nano,
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return bson.NewDateTimeFromTime(t), nil
		}
	}
	return 0, fmt.Errorf("aggregate: cannot parse date %q", s)
}

// timeUnits are the units $dateAdd, $dateSubtract and $dateDiff accept.
var timeUnits = map[string]bool{
	"year": true, "quarter": true, "month": true, "week": true, "day": true,
	"hour": true, "minute": true, "second": true, "millisecond": true,
}

func parseUnit(name string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", mongoerr.Newf(mongoerr.Location5439013, "%s requires 'unit' to be a string, but got %s", name, TypeName(v))
	}
	if !timeUnits[s] {
		return "", mongoerr.Newf(mongoerr.FailedToParse, "%s parameter 'unit' value parsing failed :: caused by :: unknown time unit value: %s", name, s)
	}
	return s, nil
}

// addUnits adds n units to t, clamping the day of month as MongoDB does
// (January 31 plus one month is the last day of February).
func addUnits(t time.Time, unit string, n int64) time.Time {
	switch unit {
	case "year", "quarter", "month":
		months := n
		if unit == "year" {
			months *= 12
		} else if unit == "quarter" {
			months *= 3
		}
		y, m, d := t.Date()
		total := int64(y)*12 + int64(m-1) + months
		ny, nm := int(total/12), time.Month(total%12+1)
		if total%12 < 0 {
			ny, nm = int(total/12)-1, time.Month(total%12+13)
		}
		last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, t.Location()).Day()
		if d > last {
			d = last
		}
		return time.Date(ny, nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	case "week":
		return t.AddDate(0, 0, int(n*7))
	case "day":
		return t.AddDate(0, 0, int(n))
	case "hour":
		return t.Add(time.Duration(n) * time.Hour)
	case "minute":
		return t.Add(time.Duration(n) * time.Minute)
	case "second":
		return t.Add(time.Duration(n) * time.Second)
	}
	return t.Add(time.Duration(n) * time.Millisecond)
}

func compileDateArith(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"startDate", "unit", "amount", "timezone"}, []string{"startDate", "unit", "amount"})
	if err != nil {
		return nil, err
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
		for _, k := range []string{"startDate", "unit", "amount", "timezone"} {
			f, ok := fs[k]
			if !ok {
				continue
			}
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			if nullish(x) {
				return nil, nil
			}
			vals[k] = x
		}
		start, ok := coerceDate(vals["startDate"])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location5166403, "%s requires startDate to be convertible to a date", name)
		}
		unit, err := parseUnit(name, vals["unit"])
		if err != nil {
			return nil, err
		}
		amt := vals["amount"]
		if !isIntegral(amt) || classify(amt) == numDecimal && !isIntegral(amt) {
			return nil, mongoerr.Newf(mongoerr.Location5166405, "%s expects integer amount of time units", name)
		}
		n := toInt64(amt)
		if name == "$dateSubtract" {
			n = -n
		}
		loc := time.UTC
		if tz, ok := vals["timezone"]; ok {
			if loc, err = parseTimezone(tz); err != nil {
				return nil, err
			}
		}
		return bson.NewDateTimeFromTime(addUnits(start.In(loc), unit, n)), nil
	}, nil
}

func compileDateDiff(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location5166301, "$dateDiff only supports an object as its argument")
	}
	fs := map[string]evalFn{}
	for _, e := range d {
		switch e.Key {
		case "startDate", "endDate", "unit", "timezone", "startOfWeek":
		default:
			return nil, mongoerr.Newf(mongoerr.Location5166302, "Unrecognized argument to $dateDiff: %s", e.Key)
		}
		f, err := c.compile(e.Value)
		if err != nil {
			return nil, err
		}
		fs[e.Key] = f
	}
	for _, req := range []struct {
		code mongoerr.Code
		arg  string
	}{{mongoerr.Location5166303, "startDate"}, {mongoerr.Location5166304, "endDate"}, {mongoerr.Location5166305, "unit"}} {
		if fs[req.arg] == nil {
			return nil, mongoerr.Newf(req.code, "Missing '%s' parameter to $dateDiff", req.arg)
		}
	}
	return func(v *Vars, doc bson.D) (any, error) {
		vals := map[string]any{}
		for _, k := range []string{"startDate", "endDate", "unit", "timezone", "startOfWeek"} {
			f, ok := fs[k]
			if !ok {
				continue
			}
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			if nullish(x) {
				if k == "startOfWeek" && vals["unit"] != "week" {
					continue
				}
				return nil, nil
			}
			vals[k] = x
		}
		loc := time.UTC
		var err error
		if tz, ok := vals["timezone"]; ok {
			if loc, err = parseTimezone(tz); err != nil {
				return nil, err
			}
		}
		start, ok := coerceDate(vals["startDate"])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location5166307, "$dateDiff requires 'startDate' to be a date, but got %s", TypeName(vals["startDate"]))
		}
		end, ok := coerceDate(vals["endDate"])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location5166307, "$dateDiff requires 'endDate' to be a date, but got %s", TypeName(vals["endDate"]))
		}
		unit, err := parseUnit(name, vals["unit"])
		if err != nil {
			return nil, err
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
				return nil, mongoerr.Newf(mongoerr.Location5439015, "$dateDiff parameter 'startOfWeek' value cannot be recognized as a day of a week: %s", str)
			}
		}
		return dateDiff(start.In(loc), end.In(loc), unit, sow), nil
	}, nil
}

// dateDiff counts the unit boundaries crossed between a and b.
func dateDiff(a, b time.Time, unit string, sow time.Weekday) int64 {
	floorDiv := func(x, y int64) int64 {
		q := x / y
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q--
		}
		return q
	}
	localMs := func(t time.Time) int64 {
		_, off := t.Zone()
		return t.UnixMilli() + int64(off)*1000
	}
	switch unit {
	case "year":
		return int64(b.Year() - a.Year())
	case "quarter":
		return int64(b.Year()*4+(int(b.Month())-1)/3) - int64(a.Year()*4+(int(a.Month())-1)/3)
	case "month":
		return int64(b.Year()*12+int(b.Month())) - int64(a.Year()*12+int(a.Month()))
	case "week":
		day := func(t time.Time) int64 {
			d := floorDiv(localMs(t), 86400000)
			// 1970-01-01 was a Thursday.
			wd := (d + 4 - int64(sow)) % 7
			if wd < 0 {
				wd += 7
			}
			return d - wd
		}
		return (day(b) - day(a)) / 7
	case "day":
		return floorDiv(localMs(b), 86400000) - floorDiv(localMs(a), 86400000)
	case "hour":
		return floorDiv(localMs(b), 3600000) - floorDiv(localMs(a), 3600000)
	case "minute":
		return floorDiv(localMs(b), 60000) - floorDiv(localMs(a), 60000)
	case "second":
		return floorDiv(localMs(b), 1000) - floorDiv(localMs(a), 1000)
	}
	return b.UnixMilli() - a.UnixMilli()
}
