package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startRedis starts Debian's redis-server on a free loopback port with an
// append-only file in a temporary directory, and stops it when the test
// ends. It skips when redis-server is absent, unless CI is set.
func startRedis(t *testing.T) (addr, dir string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("redis-server not installed (apt-get install redis-server)")
		}
		t.Fatal("redis-server not installed, and CI is set")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir = t.TempDir()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "everysec", "--dir", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				signalled = true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("redis-server did not become ready")
	}
	return fmt.Sprintf("127.0.0.1:%d", port), dir
}

// Ensure that every RESP workload runs end to end against a real Redis and
// yields its figures: tiny sizes, a few seconds in all.
func TestRunAgainstRedis(t *testing.T) {
	addr, dir := startRedis(t)
	o := DefaultOptions()
	o.Targets = []Target{{Label: LabelRedis, Protocol: RESP, Addr: addr, DataDir: dir}}
	o.Workloads = []string{"kv", "storm", "sparse", "steady", "purge"}
	o.Clients = 4
	o.Duration = 80 * time.Millisecond
	o.Keys = 500
	o.StormItems = 3000
	o.SparseDue = 20
	o.SparseHidden = 2000
	o.SteadyRate = 2000
	o.SteadyTTL = 200 * time.Millisecond
	o.SteadyFor = 600 * time.Millisecond
	o.PurgeItems = 500
	o.PurgeScan = 100 * time.Millisecond
	o.LiveItems = 200
	o.ReadRate = 400
	o.Readers = 2
	o.Timeout = 1500 * time.Millisecond
	o.Lead = 300 * time.Millisecond
	o.Poll = 10 * time.Millisecond
	o.ChartDir = t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	byWorkload := map[string]Result{}
	for _, r := range rep.Results {
		if r.Error != "" {
			t.Errorf("%s: %s", r.Workload, r.Error)
		}
		byWorkload[r.Workload] = r
	}
	want := map[string][]string{
		"kv":     {"set_ex.ops", "get.ops", "incr.ops", "hset.ops", "mix.ops", "get_p16.ops", "get.p99", "mix_p16.max"},
		"storm":  {"gone_after", "deletions_per_s", "read_before.p99", "read_during.p99", "read_after.p99"},
		"sparse": {"hidden"},
		"steady": {"written", "lag.p99", "backlog.max", "backlog_bounded", "read.p99"},
		"purge":  {"disk.max", "deleted_after"},
	}
	for w, names := range want {
		r, ok := byWorkload[w]
		if !ok {
			t.Errorf("no %s result", w)
			continue
		}
		for _, n := range names {
			m, ok := r.Metric(n)
			if !ok {
				t.Errorf("%s has no %s (has %v)", w, n, r.Metrics)
			} else if m.Value < 0 {
				t.Errorf("%s %s = %v", w, n, m.Value)
			}
		}
	}
	if m, _ := byWorkload["kv"].Metric("get.ops"); m.Value <= 0 {
		t.Errorf("kv get.ops = %v", m.Value)
	}
	if m, _ := byWorkload["steady"].Metric("written"); m.Value < 500 {
		t.Errorf("steady wrote %v items, want about 1200", m.Value)
	}
	// Redis's AOF keeps every SET until a rewrite: the marker was seen on disk.
	for _, n := range byWorkload["purge"].Notes {
		if strings.Contains(n, "never appeared") {
			t.Errorf("purge: %s", n)
		}
	}
	if len(rep.Charts) == 0 {
		t.Error("no chart written")
	}
	for _, c := range rep.Charts {
		if st, err := os.Stat(c); err != nil || st.Size() == 0 {
			t.Errorf("chart %s: %v", c, err)
		}
	}
}
