package policy

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that offsets parse as Go durations plus days and weeks, refuse
// negative, malformed and huge values, and format back.
func TestParseOffset(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"0", 0, ""},
		{"0s", 0, ""},
		{"90s", 90 * time.Second, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"7d", 7 * day, ""},
		{"1w2d12h", 9*day + 12*time.Hour, ""},
		{" 2d ", 2 * day, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"", 0, "empty expiration offset"},
		{"-1h", 0, "is negative"},
		{"7days", 0, "want a duration such as"},
		{"d", 0, "want a duration such as"},
		{"36501d", 0, "longer than 100 years"},
		{"99999999999999999999d", 0, "longer than 100 years"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseOffset(c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("ParseOffset(%q) = %v, %v; want error containing %q", c.in, got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ParseOffset(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			back, err := ParseOffset(FormatOffset(got))
			if err != nil || back != got {
				t.Fatalf("round trip of %v through %q = %v, %v", got, FormatOffset(got), back, err)
			}
		})
	}
	for d, want := range map[time.Duration]string{0: "0s", 90 * time.Second: "1m30s", 7 * day: "7d", 2*day + 3*time.Hour: "2d3h0m0s"} {
		if got := FormatOffset(d); got != want {
			t.Errorf("FormatOffset(%v) = %q, want %q", d, got, want)
		}
	}
}

// Ensure that the rule reads the field as Firestore and TTL indexes do: a
// Date expires, an array at its earliest Date, and null, missing or other
// types never.
func TestPolicyRuleDueTime(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ms := base.UnixMilli()
	hour := time.Hour.Milliseconds()
	cases := []struct {
		name  string
		field string
		doc   bson.D
		due   int64
		ok    bool
	}{
		{"date", "at", d("at", date(base)), ms + hour, true},
		{"array earliest", "at", d("at", bson.A{date(base.Add(time.Hour)), date(base), "x"}), ms + hour, true},
		{"array without dates", "at", d("at", bson.A{int32(1), "x"}), 0, false},
		{"empty array", "at", d("at", bson.A{}), 0, false},
		{"null", "at", d("at", nil), 0, false},
		{"missing", "at", d("other", date(base)), 0, false},
		{"string", "at", d("at", "2026-03-01T12:00:00Z"), 0, false},
		{"number", "at", d("at", int64(ms)), 0, false},
		{"timestamp", "at", d("at", bson.Timestamp{T: uint32(base.Unix())}), 0, false},
		{"nested", "meta.at", d("meta", d("at", date(base))), ms + hour, true},
		{"array of subdocuments", "m.at", d("m", bson.A{d("at", date(base.Add(2*time.Hour))), d("at", date(base))}), ms + hour, true},
		{"far future saturates", "at", d("at", bson.DateTime(math.MaxInt64)), math.MaxInt64, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRule("g", c.field, hour)
			due, ok := r.DueTime(c.doc)
			if ok != c.ok || due != c.due {
				t.Fatalf("dueTime = %d, %v; want %d, %v", due, ok, c.due, c.ok)
			}
			if got := r.Expired(c.doc, ms+hour); got != (c.ok && c.due <= ms+hour) {
				t.Fatalf("expired at due time = %v", got)
			}
		})
	}
	var nilRule *Rule
	if nilRule.Expired(d("at", date(base)), math.MaxInt64) {
		t.Fatal("a nil rule expired a document")
	}
}

// d builds a bson.D from alternating keys and values.
func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func date(t time.Time) bson.DateTime { return bson.NewDateTimeFromTime(t) }
