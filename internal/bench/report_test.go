package bench

import (
	"math"
	"strings"
	"testing"
)

func res(target string, p Protocol, workload string, metrics ...Metric) Result {
	return Result{Target: target, Protocol: p, Workload: workload, Metrics: metrics}
}

func met(name string, v float64) Metric {
	return Metric{Name: name, Value: v, Unit: "ops/s", Better: Higher}
}

// Ensure that MedianResults takes each metric's median over the runs that
// measured it, keeps first-seen order, and keeps an error only when no run
// succeeded.
func TestMedianResults(t *testing.T) {
	runs := [][]Result{
		{res("mayfly", RESP, "kv", met("get.ops", 100), met("set.ops", 10)), res("redis", RESP, "kv", met("get.ops", 200))},
		{res("mayfly", RESP, "kv", met("get.ops", 300), met("set.ops", 30)), {Target: "redis", Protocol: RESP, Workload: "kv", Error: "boom"}},
		{res("mayfly", RESP, "kv", met("get.ops", 200)), res("redis", RESP, "kv", met("get.ops", 400))},
		{{Target: "ferretdb", Protocol: Mongo, Workload: "storm", Error: "no TTL", Notes: []string{"refused"}}},
		{{Target: "ferretdb", Protocol: Mongo, Workload: "storm", Error: "no TTL", Notes: []string{"refused"}}},
	}
	got := MedianResults(runs)
	if len(got) != 3 {
		t.Fatalf("got %d results, want 3: %+v", len(got), got)
	}
	m := got[0]
	if m.Target != "mayfly" || m.Runs != 3 {
		t.Fatalf("first result %s with %d runs, want mayfly with 3", m.Target, m.Runs)
	}
	if v, _ := m.Metric("get.ops"); v.Value != 200 {
		t.Errorf("mayfly get.ops median = %v, want 200", v.Value)
	}
	if v, _ := m.Metric("set.ops"); v.Value != 20 || v.Runs != 2 {
		t.Errorf("mayfly set.ops median of its two runs = %v over %d runs, want 20 over 2", v.Value, v.Runs)
	}
	r := got[1]
	if r.Error != "" || r.Runs != 2 {
		t.Errorf("redis: error %q runs %d, want no error and 2 runs", r.Error, r.Runs)
	}
	if v, _ := r.Metric("get.ops"); v.Value != 300 {
		t.Errorf("redis get.ops median = %v, want 300", v.Value)
	}
	f := got[2]
	if f.Error != "no TTL" || len(f.Notes) != 1 || f.Runs != 0 {
		t.Errorf("ferretdb: %+v, want its error, one note, no runs", f)
	}
}

// Ensure that Ratios divides the baseline by each peer on the same
// workload and protocol only.
func TestRatios(t *testing.T) {
	results := []Result{
		res("mayfly", RESP, "kv", met("get.ops", 80), met("only.mayfly", 1)),
		res("mayfly", Mongo, "doc", met("insert.ops", 50)),
		res("redis", RESP, "kv", met("get.ops", 100)),
		res("ferretdb", Mongo, "doc", met("insert.ops", 5)),
		res("ferretdb", Mongo, "storm", met("gone_after", 5)),
		res("zero", RESP, "kv", met("get.ops", 0)),
	}
	got := Ratios(results, "mayfly")
	want := []struct {
		peer, metric string
		v            float64
	}{{"redis", "get.ops", 0.8}, {"ferretdb", "insert.ops", 10}}
	if len(got) != len(want) {
		t.Fatalf("got %d ratios, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Peer != w.peer || got[i].Metric != w.metric || got[i].Value != w.v {
			t.Errorf("ratio %d = %s %s %v, want %s %s %v", i, got[i].Peer, got[i].Metric, got[i].Value, w.peer, w.metric, w.v)
		}
	}
	var b strings.Builder
	if err := WriteRatioTable(&b, got, "mayfly"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| kv | resp | get.ops | redis | 80.00 | 100.0 | ops/s | 0.8000x | higher |"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("ratio table lacks %q:\n%s", s, b.String())
		}
	}
}

// Ensure that FormatFloat keeps about four significant digits.
func TestFormatFloat(t *testing.T) {
	tests := map[float64]string{0: "0", 123456.7: "123457", 123.45: "123.5", 12.345: "12.35", 1.2345: "1.234", 0.012345: "0.0123", math.NaN(): "n/a", math.Inf(1): "inf"}
	for v, want := range tests {
		if got := FormatFloat(v); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", v, got, want)
		}
	}
}

// Ensure that labelled and bare target flags parse, and that ambiguous
// ones are refused.
func TestParseTargets(t *testing.T) {
	ts, err := ParseTargets(
		[]string{"mayfly=127.0.0.1:6380", "127.0.0.1:6379"},
		[]string{"mayfly=mongodb://127.0.0.1:27018/", "mongodb://127.0.0.1:27017/?directConnection=true"},
		[]string{"mayfly=/tmp/m"},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{
		{Label: "mayfly", Protocol: RESP, Addr: "127.0.0.1:6380", DataDir: "/tmp/m"},
		{Label: "127.0.0.1:6379", Protocol: RESP, Addr: "127.0.0.1:6379"},
		{Label: "mayfly", Protocol: Mongo, Addr: "mongodb://127.0.0.1:27018/", DataDir: "/tmp/m"},
		{Label: "mongodb://127.0.0.1:27017/?directConnection=true", Protocol: Mongo, Addr: "mongodb://127.0.0.1:27017/?directConnection=true"},
	}
	if len(ts) != len(want) {
		t.Fatalf("got %+v, want %+v", ts, want)
	}
	for i := range want {
		if ts[i] != want[i] {
			t.Errorf("target %d = %+v, want %+v", i, ts[i], want[i])
		}
	}
	bad := map[string]struct{ resp, dirs []string }{
		"same label twice":      {[]string{"a=1:1", "a=1:2"}, nil},
		"bare dir, two servers": {[]string{"a=1:1", "b=1:2"}, []string{"/d"}},
		"dir for unknown label": {[]string{"a=1:1"}, []string{"b=/d"}},
		"empty address":         {[]string{""}, nil},
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseTargets(tc.resp, nil, tc.dirs); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if ts, err := ParseTargets([]string{"x=1:1"}, nil, []string{"/d"}); err != nil || ts[0].DataDir != "/d" {
		t.Errorf("bare dir with one server: %+v, %v", ts, err)
	}
}

// Ensure that INFO replies parse as Redis writes them.
func TestParseInfo(t *testing.T) {
	info := ParseInfo("# Stats\r\nexpired_keys:42\r\nexpired_stale_perc:0.00\r\n\r\n# Keyspace\r\ndb0:keys=10,expires=5,avg_ttl=0\r\ndb3:keys=7,expires=7,avg_ttl=100\r\n")
	if info["expired_keys"] != "42" {
		t.Errorf("expired_keys = %q", info["expired_keys"])
	}
	for db, want := range map[int]int64{0: 10, 3: 7, 1: 0} {
		got, err := KeyspaceKeys(info, db)
		if err != nil || got != want {
			t.Errorf("db%d keys = %d, %v; want %d", db, got, err, want)
		}
	}
	if _, err := KeyspaceKeys(map[string]string{"db0": "expires=1"}, 0); err == nil {
		t.Error("a db line without keys= parsed")
	}
}
