package integration_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that the real binary starts on port 0 in a temp dir, answers
// /healthz, and exits cleanly on SIGTERM.
func TestSmokeServeAndStop(t *testing.T) {
	s := harness.Start(t)
	if s.HTTPAddr == "" {
		t.Fatal("ready line has no http address")
	}
	resp, err := http.Get("http://" + s.HTTPAddr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Fatalf("/healthz = %d %q", resp.StatusCode, body)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, s.Logs())
	}
}
