package integration_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// scrape returns the body of s's /metrics.
func scrape(t *testing.T, s *harness.Server) []byte {
	t.Helper()
	resp, err := http.Get("http://" + s.HTTPAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// startWithDeletion starts a server on its manual clock and has it delete
// one expired Redis key, so that the metrics that appear only after a
// deletion (the lag histograms by kind) are there; a key due in an hour
// gives the next-due gauge, and a MongoDB ping the request latencies of
// both protocols.
func startWithDeletion(t *testing.T) *harness.Server {
	t.Helper()
	s := harness.Start(t, "--manual-clock", "--set-parameter", "ttlMonitorSleepSecs=1")
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	if err := rc.Set(t.Context(), "gone", "v", time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Set(t.Context(), "later", "v", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	if err := cl.Ping(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the key's deletion", func() bool {
		s.Advance(t, 2*time.Second)
		return bytes.Contains(scrape(t, s), []byte(`mayfly_expiry_deleted_total{kind="redis_keys"} 1`))
	})
	return s
}

// Ensure that every metric the Grafana dashboard and the Prometheus alerts
// use is one a running server exports.
func TestDashboardMetricsExist(t *testing.T) {
	s := startWithDeletion(t)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(scrape(t, s)))
	if err != nil {
		t.Fatal(err)
	}
	// The request latencies carry each protocol's command names.
	seen := map[string]bool{}
	for _, m := range families["mayfly_request_duration_seconds"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		seen[labels["protocol"]+" "+labels["command"]] = m.GetHistogram().GetSampleCount() > 0
	}
	for _, want := range []string{"resp set", "mongo ping"} {
		if !seen[want] {
			t.Errorf("mayfly_request_duration_seconds has no %s: %v", want, seen)
		}
	}
	root, err := harness.Root()
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`\bmayfly_[a-z0-9_]+`)
	for _, file := range []string{"deploy/grafana/mayfly.json", "deploy/prometheus/alerts.yml"} {
		text, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		used := name.FindAllString(string(text), -1)
		if len(used) == 0 {
			t.Fatalf("%s uses no mayfly metric", file)
		}
		slices.Sort(used)
		for _, m := range slices.Compact(used) {
			if _, ok := families[m]; ok {
				continue
			}
			base := m
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if f, ok := families[base]; ok && base != m && f.GetType().String() == "HISTOGRAM" {
				continue
			}
			t.Errorf("%s uses %s, which /metrics does not export", file, m)
		}
	}
}

// Ensure that /metrics follows Prometheus's naming conventions (counters
// end in _total, durations in _seconds, base units, help on every metric),
// as promtool check metrics checks them.
func TestMetricsNamingConventions(t *testing.T) {
	s := startWithDeletion(t)
	problems, err := promlint.New(bytes.NewReader(scrape(t, s))).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
