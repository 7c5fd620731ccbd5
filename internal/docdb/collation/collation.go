package collation

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Collator compares strings under one collation. It is safe for
// concurrent use.
type Collator struct {
	spec bson.D
	full bson.D
	// upperFirst swaps the case of every letter before taking a key:
	// the locale's tertiary order puts lowercase first, so the swapped
	// string's key puts uppercase first (caseFirst: "upper").
	upperFirst bool
	// caseLevel appends the case of each letter to keys that otherwise
	// ignore the tertiary level (strength 1 and 2 with caseLevel), as
	// ICU's case level between the secondary and tertiary ones does.
	caseLevel bool

	// keyers holds *keyer values: a collate.Collator is not safe for
	// concurrent use, so each concurrent Key call takes its own.
	keyers sync.Pool
}

// keyer is one goroutine's collator with its key buffer.
type keyer struct {
	c   *collate.Collator
	buf collate.Buffer
}

// Spec returns the collation as MongoDB reports it back: the fields the
// client gave.
func (c *Collator) Spec() bson.D { return c.spec }

// Full returns the collation with every field MongoDB reports for an
// index or a collection default: the given ones and the defaults of the
// others, in MongoDB's order.
func (c *Collator) Full() bson.D { return c.full }

// Equal reports whether c and d are the same collation (nil is the simple
// one).
func Equal(c, d *Collator) bool {
	if c == nil || d == nil {
		return c == d
	}
	a, _ := bson.Marshal(c.full)
	b, _ := bson.Marshal(d.full)
	return string(a) == string(b)
}

// Key returns the collation key of s: strings compare under the collation
// as their keys compare bytewise.
func (c *Collator) Key(s string) string {
	if c.upperFirst {
		s = swapCase(s)
	}
	kr := c.keyers.Get().(*keyer)
	defer c.keyers.Put(kr)
	k := kr.c.KeyFromString(&kr.buf, s)
	if c.caseLevel {
		k = appendCaseLevel(k, s)
	}
	out := string(k)
	kr.buf.Reset()
	return out
}

// caseLevelSeparator ends the primary and secondary weights of a key
// with a case level; it is below every weight byte sequence, so a key
// that is a prefix of another still sorts first.
const caseLevelSeparator = "\x00\x00\x00"

// appendCaseLevel appends the case level of s to key: per letter, 1 for
// lowercase or uncased and 2 for uppercase (s is already case-swapped
// for caseFirst: "upper").
func appendCaseLevel(key []byte, s string) []byte {
	key = append(key, caseLevelSeparator...)
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			key = append(key, 2)
		case unicode.IsLetter(r):
			key = append(key, 1)
		}
	}
	return key
}

// Value returns v with every string in it (in documents and arrays too)
// replaced by its collation key. Other values are returned unchanged.
func (c *Collator) Value(v any) any {
	switch x := v.(type) {
	case string:
		return c.Key(x)
	case bson.Symbol:
		return c.Key(string(x))
	case bson.D:
		return c.Doc(x)
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = c.Value(e)
		}
		return out
	}
	return v
}

// Doc returns a copy of d with every string value replaced by its key;
// field names are unchanged.
func (c *Collator) Doc(d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = bson.E{Key: e.Key, Value: c.Value(e.Value)}
	}
	return out
}

// maxCached bounds the collators Parse keeps for reuse; specs past it
// are parsed each time.
const maxCached = 256

var cache struct {
	mu sync.Mutex
	m  map[string]*Collator
}

// Parse checks a collation spec and returns its Collator, or nil for the
// simple binary collation (an empty spec, or locale "simple"). Collators
// of the same spec are shared (the first maxCached specs are kept).
func Parse(spec bson.D) (*Collator, error) {
	if len(spec) == 0 {
		return nil, nil
	}
	raw := string(mustMarshal(spec))
	cache.mu.Lock()
	c, ok := cache.m[raw]
	cache.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := parse(spec)
	if err != nil || c == nil {
		return c, err
	}
	cache.mu.Lock()
	if cache.m == nil {
		cache.m = map[string]*Collator{}
	}
	if len(cache.m) < maxCached {
		cache.m[raw] = c
	}
	cache.mu.Unlock()
	return c, nil
}

func parse(spec bson.D) (*Collator, error) {
	locale, hasLocale := "", false
	strength := 3
	var numeric, caseLevel, backwards, normalization bool
	caseFirst, alternate, maxVariable := "off", "non-ignorable", "punct"
	ext := ""
	for _, e := range spec {
		switch e.Key {
		case "locale":
			s, ok := e.Value.(string)
			if !ok {
				return nil, wrongType(e.Key, e.Value, "string")
			}
			locale, hasLocale = s, true
		case "strength":
			n, ok := wholeNumber(e.Value)
			if !ok {
				return nil, wrongType(e.Key, e.Value, "int")
			}
			if n < 1 || n > 5 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "Enumeration value '%d' for field 'strength' is not a valid value.", n)
			}
			strength = int(n)
		case "caseLevel", "backwards", "normalization":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, wrongType(e.Key, e.Value, "bool")
			}
			switch e.Key {
			case "caseLevel":
				caseLevel = b
			case "backwards":
				backwards = b
			default:
				normalization = b
			}
		case "numericOrdering":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, wrongType(e.Key, e.Value, "bool")
			}
			numeric = b
		case "caseFirst":
			if err := enum(e, "upper", "lower", "off"); err != nil {
				return nil, err
			}
			caseFirst = e.Value.(string)
		case "alternate":
			if err := enum(e, "non-ignorable", "shifted"); err != nil {
				return nil, err
			}
			alternate = e.Value.(string)
		case "maxVariable":
			if err := enum(e, "punct", "space"); err != nil {
				return nil, err
			}
			maxVariable = e.Value.(string)
		case "version":
			// Reported by MongoDB; accepted back as given.
		default:
			return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field 'Collation.%s' is an unknown field.", e.Key)
		}
	}
	if !hasLocale {
		return nil, mongoerr.New(mongoerr.IDLFailedToParse, "BSON field 'Collation.locale' is missing but a required field")
	}
	if locale == "simple" {
		if len(spec) > 1 {
			return nil, mongoerr.Newf(mongoerr.BadValue, "Collation spec with locale 'simple' cannot have other fields: %s", bson.Raw(mustMarshal(spec)).String())
		}
		return nil, nil
	}
	tag, err := language.Parse(locale)
	if err != nil || locale == "" {
		return nil, mongoerr.Newf(mongoerr.BadValue, "Field 'locale' is invalid in: %s", bson.Raw(mustMarshal(spec)).String())
	}
	levels := map[int]string{1: "level1", 2: "level2", 3: "level3", 4: "level4", 5: "identic"}
	ext = "-u-ks-" + levels[strength]
	if alternate == "shifted" {
		ext += "-ka-shifted"
	}
	if backwards {
		ext += "-kb-true"
	}
	tag, err = language.Parse(tag.String() + ext)
	if err != nil {
		return nil, fmt.Errorf("collation tag for %q: %w", locale, err)
	}
	var opts []collate.Option
	if numeric {
		opts = append(opts, collate.Numeric)
	}
	full := bson.D{
		{Key: "locale", Value: locale},
		{Key: "caseLevel", Value: caseLevel},
		{Key: "caseFirst", Value: caseFirst},
		{Key: "strength", Value: int32(strength)},
		{Key: "numericOrdering", Value: numeric},
		{Key: "alternate", Value: alternate},
		{Key: "maxVariable", Value: maxVariable},
		{Key: "normalization", Value: normalization},
		{Key: "backwards", Value: backwards},
		{Key: "version", Value: icuVersion},
	}
	// Case order counts where cases are told apart: at the tertiary
	// level, or at any strength with caseLevel.
	upper := caseFirst == "upper" && (strength >= 3 || caseLevel)
	c := &Collator{spec: spec, full: full, upperFirst: upper, caseLevel: caseLevel && strength < 3}
	c.keyers.New = func() any { return &keyer{c: collate.New(tag, opts...)} }
	return c, nil
}

// icuVersion is the collation version MongoDB 7 reports (its ICU's).
const icuVersion = "57.1"

// swapCase returns s with each letter that has a case of its own in the
// other case (a <-> A); letters without a reversible case mapping stay.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsUpper(r):
			if l := unicode.ToLower(r); unicode.ToUpper(l) == r {
				return l
			}
		case unicode.IsLower(r):
			if u := unicode.ToUpper(r); unicode.ToLower(u) == r {
				return u
			}
		}
		return r
	}, s)
}

func enum(e bson.E, allowed ...string) error {
	s, ok := e.Value.(string)
	if !ok {
		return wrongType(e.Key, e.Value, "string")
	}
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return mongoerr.Newf(mongoerr.BadValue, "Enumeration value '%s' for field '%s' is not a valid value.", s, e.Key)
}

func wrongType(field string, v any, want string) error {
	return mongoerr.Newf(mongoerr.TypeMismatch, "BSON field 'Collation.%s' is the wrong type '%s', expected type '%s'", field, typeName(v), want)
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case int, int32:
		return "int"
	case int64:
		return "long"
	case float64:
		return "double"
	case bson.D:
		return "object"
	case bson.A:
		return "array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

func mustMarshal(d bson.D) []byte {
	b, _ := bson.Marshal(d)
	return b
}
