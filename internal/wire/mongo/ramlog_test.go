package mongo

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"testing"
)

func TestRAMLogKeepsTheLastLines(t *testing.T) {
	t.Parallel()
	ram := NewRAMLog(3)
	var next bytes.Buffer
	log := slog.New(ram.Handler(slog.NewTextHandler(&next, nil))).With("component", "NETWORK", "ctx", "conn7")
	for i := range 5 {
		log.Info("line", "i", i, slog.Group("g", "k", "v"))
	}
	log.Debug("not kept")
	lines := ram.Lines()
	if len(lines) != 3 || ram.TotalLinesWritten() != 5 {
		t.Fatalf("lines %v, total %d", lines, ram.TotalLinesWritten())
	}
	for n, l := range lines {
		var m struct {
			S    string         `json:"s"`
			C    string         `json:"c"`
			Ctx  string         `json:"ctx"`
			Msg  string         `json:"msg"`
			Attr map[string]any `json:"attr"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if m.S != "I" || m.C != "NETWORK" || m.Ctx != "conn7" || m.Msg != "line" || m.Attr["i"] != float64(n+2) || m.Attr["g.k"] != "v" {
			t.Fatalf("line %d = %q", n, l)
		}
	}
	if c := bytes.Count(next.Bytes(), []byte("\n")); c != 5 {
		t.Fatalf("next handler got %d lines: %s", c, next.String())
	}
}

func TestRAMLogLevels(t *testing.T) {
	t.Parallel()
	ram := NewRAMLog(0)
	log := slog.New(ram.Handler(nil))
	log.Warn("w")
	log.Error("e")
	for i, want := range []string{"W", "E"} {
		var m struct{ S string }
		json.Unmarshal([]byte(ram.Lines()[i]), &m)
		if m.S != want {
			t.Errorf("line %s severity %q, want %q", strconv.Itoa(i), m.S, want)
		}
	}
}
