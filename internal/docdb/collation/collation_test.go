package collation

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func TestParseSimple(t *testing.T) {
	for _, spec := range []bson.D{nil, {}, {{Key: "locale", Value: "simple"}}} {
		c, err := Parse(spec)
		if c != nil || err != nil {
			t.Errorf("Parse(%v) = %v, %v; want the simple collation (nil)", spec, c, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		spec bson.D
		code mongoerr.Code
		msg  string
	}{
		{bson.D{{Key: "strength", Value: 2}}, mongoerr.IDLFailedToParse, "BSON field 'Collation.locale' is missing but a required field"},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 6}}, mongoerr.BadValue, "Enumeration value '6' for field 'strength' is not a valid value."},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "middle"}}, mongoerr.BadValue, "Enumeration value 'middle' for field 'caseFirst' is not a valid value."},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "nope", Value: 1}}, mongoerr.IDLUnknownField, "BSON field 'Collation.nope' is an unknown field."},
		{bson.D{{Key: "locale", Value: 5}}, mongoerr.TypeMismatch, "BSON field 'Collation.locale' is the wrong type 'int', expected type 'string'"},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "numericOrdering", Value: "yes"}}, mongoerr.TypeMismatch, "BSON field 'Collation.numericOrdering' is the wrong type 'string', expected type 'bool'"},
		{bson.D{{Key: "locale", Value: "not a locale!"}}, mongoerr.BadValue, ""},
	} {
		_, err := Parse(tc.spec)
		e, ok := mongoerr.As(err)
		if !ok || e.Code != tc.code || (tc.msg != "" && e.Message != tc.msg) {
			t.Errorf("Parse(%v) = %v; want %v %q", tc.spec, err, tc.code, tc.msg)
		}
	}
}

func TestKeysOrderAsTheCollation(t *testing.T) {
	mk := func(spec bson.D) *Collator {
		c, err := Parse(spec)
		if err != nil || c == nil {
			t.Fatalf("Parse(%v) = %v, %v", spec, c, err)
		}
		return c
	}
	en := func(extra ...bson.E) bson.D { return append(bson.D{{Key: "locale", Value: "en_US"}}, extra...) }
	fr := func(extra ...bson.E) bson.D { return append(bson.D{{Key: "locale", Value: "fr"}}, extra...) }
	cmp := func(c *Collator, a, b string) int {
		ka, kb := c.Key(a), c.Key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	}
	for _, tc := range []struct {
		name string
		c    *Collator
		a, b string
		want int
	}{
		{"strength 3 tells cases apart", mk(en()), "ping", "PING", -1},
		{"strength 2 ignores case", mk(en(bson.E{Key: "strength", Value: 2})), "ping", "PING", 0},
		{"strength 2 keeps accents", mk(en(bson.E{Key: "strength", Value: 2})), "e", "é", -1},
		{"strength 1 ignores accents", mk(en(bson.E{Key: "strength", Value: 1})), "côte", "COTE", 0},
		{"letters before case", mk(en()), "Apple", "banana", -1},
		{"digits compare as text by default", mk(en()), "10", "2", -1},
		{"numericOrdering compares numbers", mk(en(bson.E{Key: "numericOrdering", Value: true})), "10", "2", 1},
		{"alternate shifted ignores spaces and punctuation", mk(en(bson.E{Key: "alternate", Value: "shifted"})), "a b", "ab", 0},
		{"caseFirst off puts lowercase first", mk(en()), "a", "A", -1},
		{"caseFirst lower puts lowercase first", mk(en(bson.E{Key: "caseFirst", Value: "lower"})), "a", "A", -1},
		{"caseFirst upper puts uppercase first", mk(en(bson.E{Key: "caseFirst", Value: "upper"})), "a", "A", 1},
		{"caseFirst upper keeps letters first", mk(en(bson.E{Key: "caseFirst", Value: "upper"})), "B", "a", 1},
		{"caseFirst upper at strength 2 ignores case", mk(en(bson.E{Key: "caseFirst", Value: "upper"}, bson.E{Key: "strength", Value: 2})), "a", "A", 0},
		{"caseLevel at strength 1 tells cases apart", mk(en(bson.E{Key: "caseLevel", Value: true}, bson.E{Key: "strength", Value: 1})), "a", "A", -1},
		{"caseLevel at strength 1 ignores accents", mk(en(bson.E{Key: "caseLevel", Value: true}, bson.E{Key: "strength", Value: 1})), "a", "á", 0},
		{"caseLevel with caseFirst upper", mk(en(bson.E{Key: "caseLevel", Value: true}, bson.E{Key: "strength", Value: 1}, bson.E{Key: "caseFirst", Value: "upper"})), "a", "A", 1},
		{"accents compare forwards by default", mk(fr()), "côte", "coté", 1},
		{"backwards compares accents from the end", mk(fr(bson.E{Key: "backwards", Value: true})), "côte", "coté", -1},
	} {
		if got := cmp(tc.c, tc.a, tc.b); got != tc.want {
			t.Errorf("%s: compare(%q, %q) = %d, want %d", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestValueMapsNestedStrings(t *testing.T) {
	c, err := Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Value(bson.D{{Key: "x", Value: bson.A{"PING", int32(1)}}, {Key: "y", Value: bson.D{{Key: "z", Value: "Pong"}}}})
	b := c.Value(bson.D{{Key: "x", Value: bson.A{"ping", int32(1)}}, {Key: "y", Value: bson.D{{Key: "z", Value: "pong"}}}})
	ra, _ := bson.Marshal(a)
	rb, _ := bson.Marshal(b)
	if string(ra) != string(rb) {
		t.Errorf("documents equal under strength 2 map to different keys: %v vs %v", a, b)
	}
	if d := a.(bson.D); d[0].Key != "x" || d[0].Value.(bson.A)[1] != int32(1) {
		t.Errorf("field names or non-strings changed: %v", a)
	}
}

func TestFullSpecHasEveryField(t *testing.T) {
	c, err := Parse(bson.D{{Key: "locale", Value: "en_US"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{
		{Key: "locale", Value: "en_US"}, {Key: "caseLevel", Value: false}, {Key: "caseFirst", Value: "off"},
		{Key: "strength", Value: int32(2)}, {Key: "numericOrdering", Value: false}, {Key: "alternate", Value: "non-ignorable"},
		{Key: "maxVariable", Value: "punct"}, {Key: "normalization", Value: false}, {Key: "backwards", Value: false},
		{Key: "version", Value: "57.1"},
	}
	got, _ := bson.Marshal(c.Full())
	w, _ := bson.Marshal(want)
	if string(got) != string(w) {
		t.Errorf("Full() = %v, want %v", c.Full(), want)
	}
	d, _ := Parse(bson.D{{Key: "strength", Value: 2}, {Key: "locale", Value: "en_US"}})
	e, _ := Parse(bson.D{{Key: "locale", Value: "en_US"}})
	if !Equal(c, d) || Equal(c, e) || Equal(c, nil) || !Equal(nil, nil) {
		t.Errorf("Equal does not compare the full specs")
	}
}

func TestKeyIsSafeForConcurrentUse(t *testing.T) {
	c, err := Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := c.Key("Ping")
	done := make(chan string)
	for range 8 {
		go func() {
			var k string
			for range 200 {
				k = c.Key("Ping")
			}
			done <- k
		}()
	}
	for range 8 {
		if k := <-done; k != want {
			t.Errorf("concurrent Key = %q, want %q", k, want)
		}
	}
}
