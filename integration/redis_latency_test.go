package integration_test

import (
	"testing"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisLatencyMonitor: through go-redis against the real binary, with
// latency-monitor-threshold set a command that takes longer is a
// "command" event in LATENCY LATEST and HISTORY until LATENCY RESET, and
// LATENCY HISTOGRAM reports each called command (a container's
// subcommands by their full names) with its calls.
func TestRedisLatencyMonitor(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	if err := rc.ConfigSet(ctx, "latency-monitor-threshold", "100").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctx, "debug", "sleep", "0.15").Err(); err != nil {
		t.Fatal(err)
	}
	latest, err := rc.Do(ctx, "latency", "latest").Slice()
	if err != nil || len(latest) != 1 {
		t.Fatalf("LATENCY LATEST: %v %v", latest, err)
	}
	ev := latest[0].([]any)
	if ev[0] != "command" || ev[2].(int64) < 150 || ev[3].(int64) < 150 {
		t.Fatalf("LATENCY LATEST event: %v", ev)
	}
	if h, err := rc.Do(ctx, "latency", "history", "command").Slice(); err != nil || len(h) != 1 ||
		h[0].([]any)[1].(int64) < 150 {
		t.Fatalf("LATENCY HISTORY command: %v %v", h, err)
	}
	if n, err := rc.Do(ctx, "latency", "reset").Int(); err != nil || n != 1 {
		t.Fatalf("LATENCY RESET: %d %v", n, err)
	}
	if latest, err := rc.Do(ctx, "latency", "latest").Slice(); err != nil || len(latest) != 0 {
		t.Fatalf("LATENCY LATEST after RESET: %v %v", latest, err)
	}

	if err := rc.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rc.Set(ctx, "a", "b", 0)
	rc.Set(ctx, "c", "d", 0)
	rc.ClientID(ctx)
	histogram := func(args ...any) map[any]any {
		t.Helper()
		v, err := rc.Do(ctx, append([]any{"latency", "histogram"}, args...)...).Result()
		m, ok := v.(map[any]any)
		if err != nil || !ok {
			t.Fatalf("LATENCY HISTOGRAM %v: %v %v", args, v, err)
		}
		return m
	}
	histo := histogram("set", "client", "nosuchcommand")
	if len(histo) != 2 || histo["set"] == nil || histo["client|id"] == nil {
		t.Fatalf("LATENCY HISTOGRAM set client: %v", histo)
	}
	set := histo["set"].(map[any]any)
	if set["calls"] != int64(2) {
		t.Fatalf("LATENCY HISTOGRAM set: %v", set)
	}
	most := int64(0)
	for _, n := range set["histogram_usec"].(map[any]any) {
		most = max(most, n.(int64))
	}
	if most != 2 {
		t.Fatalf("LATENCY HISTOGRAM set buckets: %v, the last count should be every call", set)
	}
	if all := histogram(); len(all) != 4 { // config|resetstat, set, client|id, latency|histogram
		t.Fatalf("LATENCY HISTOGRAM: %v", all)
	}
}
