package collation

import (
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Collator compares strings under one collation. It is safe for
// concurrent use.
type Collator struct {
	spec bson.D

	mu  sync.Mutex
	c   *collate.Collator
	buf collate.Buffer
}

// Spec returns the collation as MongoDB reports it back: the fields the
// client gave.
func (c *Collator) Spec() bson.D { return c.spec }

// Key returns the collation key of s: strings compare under the collation
// as their keys compare bytewise.
func (c *Collator) Key(s string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := string(c.c.KeyFromString(&c.buf, s))
	c.buf.Reset()
	return k
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

// Parse checks a collation spec and returns its Collator, or nil for the
// simple binary collation (an empty spec, or locale "simple").
func Parse(spec bson.D) (*Collator, error) {
	if len(spec) == 0 {
		return nil, nil
	}
	locale, hasLocale := "", false
	strength := 3
	var numeric bool
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
			if _, ok := e.Value.(bool); !ok {
				return nil, wrongType(e.Key, e.Value, "bool")
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
		case "alternate":
			if err := enum(e, "non-ignorable", "shifted"); err != nil {
				return nil, err
			}
			if e.Value == "shifted" {
				ext += "-ka-shifted"
			}
		case "maxVariable":
			if err := enum(e, "punct", "space"); err != nil {
				return nil, err
			}
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
	tag, err = language.Parse(tag.String() + "-u-ks-" + levels[strength] + ext)
	if err != nil {
		return nil, fmt.Errorf("collation tag for %q: %w", locale, err)
	}
	var opts []collate.Option
	if numeric {
		opts = append(opts, collate.Numeric)
	}
	return &Collator{spec: spec, c: collate.New(tag, opts...)}, nil
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
