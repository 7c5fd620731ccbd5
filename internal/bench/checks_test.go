package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func checkByName(t *testing.T, cs []Check, name string) Check {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q", name)
	return Check{}
}

// Ensure that the targets are judged on the right figures and that
// missing figures read as not measured, not as failures.
func TestEvaluateChecks(t *testing.T) {
	m := func(name string, v float64) Metric { return Metric{Name: name, Value: v} }
	results := []Result{
		res("mayfly", RESP, "kv", m("get.ops", 90), m("set_ex.ops", 70), m("get_p16.ops", 40)),
		res("redis", RESP, "kv", m("get.ops", 100), m("set_ex.ops", 100), m("get_p16.ops", 100)),
		res("mayfly", Mongo, "doc", m("insert.ops", 40), m("find_id.ops", 60)),
		res("ferretdb", Mongo, "doc", m("insert.ops", 2), m("find_id.ops", 1)),
		res("mayfly", RESP, "storm", m("gone_after", 1.5), m("read_during.p99", 1), m("read_p99_during_over_before", 2)),
		res("redis", RESP, "storm", m("read_during.p99", 9)), // Redis timed out: no gone_after
		res("mayfly", RESP, "sparse", m("gone_after", 1.2)),
		res("mayfly", RESP, "steady", m("lag.p99", 999), m("backlog_bounded", 0)),
	}
	cs := EvaluateChecks(results, 16)
	tests := map[string]Status{
		"kv get unpipelined vs redis":           Met,    // 0.9 >= 0.8
		"kv set_ex unpipelined vs redis":        NotMet, // 0.7
		"kv incr unpipelined vs redis":          NotMeasured,
		"kv get_p16 vs redis":                   NotMet, // 0.4 < 0.5
		"doc insert vs ferretdb":                Met,    // 20x
		"doc find_id vs ferretdb":               Met,    // 60x
		"doc find_id vs redis GET":              Met,    // 60/100 = 0.6 >= 0.5
		"doc insert vs redis SET EX":            Met,    // 40/100 = 0.4 >= 0.3
		"storm gone sooner than redis (resp)":   Met,    // redis never finished
		"storm read p99 during / before (resp)": Met,    // exactly 2
		"sparse all gone (resp)":                NotMet,
		"sparse all gone (mongo)":               NotMeasured,
		"steady lag p99 (resp)":                 Met,
		"steady backlog bounded (resp)":         NotMet,
		"steady backlog bounded (mongo)":        NotMeasured,
	}
	for name, want := range tests {
		if got := checkByName(t, cs, name); got.Status != want {
			t.Errorf("%s: %s (%v), want %s", name, got.Status, got.Value, want)
		}
	}
	// Both finished: a ratio, met only below 1.
	results[5] = res("redis", RESP, "storm", m("gone_after", 1), m("read_during.p99", 9))
	if c := checkByName(t, EvaluateChecks(results, 16), "storm gone sooner than redis (resp)"); c.Status != NotMet || c.Value != 1.5 {
		t.Errorf("storm 1.5 s vs 1 s: %+v", c)
	}
}

// Ensure that analyzeSteady computes the backlog from due and deleted
// counts and each deletion's lag in due order.
func TestAnalyzeSteady(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	batches := []steadyBatch{
		{from: 0, to: 10, due: at(100)},
		{from: 10, to: 20, due: at(200)},
		{from: 20, to: 30, due: at(300)},
	}
	samples := []counterSample{
		{at: at(50), Counters: Counters{Deleted: 5}},   // base is 5
		{at: at(150), Counters: Counters{Deleted: 5}},  // 10 due, none deleted
		{at: at(250), Counters: Counters{Deleted: 15}}, // 20 due, 10 deleted (the first batch, 150 ms late)
		{at: at(350), Counters: Counters{Deleted: 35}}, // all 30 deleted: batch 2 150 ms late, batch 3 50 ms late
	}
	a := analyzeSteady(batches, samples, 5, at(0), at(400), 100)
	wantBacklog := []int64{0, 10, 10, 0}
	for i, w := range wantBacklog {
		if a.backlog[i].n != w {
			t.Errorf("backlog[%d] = %d, want %d", i, a.backlog[i].n, w)
		}
	}
	if a.maxBacklog != 10 {
		t.Errorf("max backlog %d, want 10", a.maxBacklog)
	}
	if a.lag.Count() != 30 {
		t.Fatalf("%d lags, want 30", a.lag.Count())
	}
	if p50, max := a.lag.Quantile(0.5), a.lag.Summary().Max; p50 != 150*time.Millisecond || max != 150*time.Millisecond {
		t.Errorf("lag p50 %v max %v, want 150ms and 150ms", p50, max)
	}
	if !a.bounded {
		t.Error("a backlog of 0, 10, 10, 0 counts as unbounded")
	}
	if q := a.lag.Quantile(0.1); q < 50*time.Millisecond || q > 50*time.Millisecond+50*time.Millisecond/128 {
		t.Errorf("lag p10 %v, want 50ms (the third batch)", q)
	}
}

// Ensure that ScanDir finds a marker anywhere in any file, also across
// its read-buffer boundary, and sums the sizes.
func TestScanDir(t *testing.T) {
	dir := t.TempDir()
	marker := []byte("mfpurge-0123456789abcdef")
	big := make([]byte, 1<<20+100)
	copy(big[1<<20-5:], marker) // straddles the first 1 MiB read
	files := map[string][]byte{
		"a/000001.log": big,
		"b.sst":        []byte("nothing here"),
		"c.sst":        append([]byte("xx"), marker...),
	}
	var total int64
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		total += int64(len(data))
	}
	s, err := ScanDir(dir, marker)
	if err != nil {
		t.Fatal(err)
	}
	if s.Files != 3 || s.Bytes != total {
		t.Errorf("files %d bytes %d, want 3 and %d", s.Files, s.Bytes, total)
	}
	if len(s.WithMarker) != 2 || s.WithMarker[0] != filepath.Join("a", "000001.log") || s.WithMarker[1] != "c.sst" {
		t.Errorf("with marker %v, want [a/000001.log c.sst]", s.WithMarker)
	}
}

// Ensure that a backlog growing steadily through the writes is unbounded
// and one that oscillates at a level is bounded.
func TestSteadyBounded(t *testing.T) {
	t0 := time.Unix(1000, 0)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	const rate = 1000.0
	var batches []steadyBatch
	for i := range 90 { // 100 items due every 100 ms over 9 s
		batches = append(batches, steadyBatch{from: i * 100, to: (i + 1) * 100, due: sec(0.1 * float64(i+1))})
	}
	tests := map[string]struct {
		deleted func(t float64) int64 // items counted deleted by second t
		want    bool
	}{
		"deleted at once":            {func(t float64) int64 { return int64(t*10) * 100 }, true},
		"sawtooth of half a second":  {func(t float64) int64 { return int64(t*2) * 500 }, true},
		"deletes half as fast":       {func(t float64) int64 { return int64(t * 500) }, false},
		"falls behind after a while": {func(t float64) int64 { return int64(min(t, 4) * 1000) }, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var samples []counterSample
			for s := 0.0; s <= 9; s += 0.05 {
				samples = append(samples, counterSample{at: sec(s), Counters: Counters{Deleted: tc.deleted(s)}})
			}
			if got := analyzeSteady(batches, samples, 0, t0, sec(9), rate).bounded; got != tc.want {
				t.Fatalf("bounded = %v, want %v", got, tc.want)
			}
		})
	}
}
