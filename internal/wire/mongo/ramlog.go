package mongo

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// RAMLog keeps the most recent log lines in memory for getLog "global", in
// MongoDB's structured (JSON) log format. It is safe for concurrent use.
type RAMLog struct {
	mu    sync.Mutex
	lines []string
	next  int
	full  bool
	total int64
}

// DefaultRAMLogLines is the number of lines a RAMLog keeps, as MongoDB's
// global RAM log does.
const DefaultRAMLogLines = 1024

// NewRAMLog returns a RAMLog keeping the last n lines; n <= 0 means
// DefaultRAMLogLines.
func NewRAMLog(n int) *RAMLog {
	if n <= 0 {
		n = DefaultRAMLogLines
	}
	return &RAMLog{lines: make([]string, n)}
}

// Handler returns a slog.Handler that records every record it handles and
// passes it on to next (which may be nil to only record).
func (r *RAMLog) Handler(next slog.Handler) slog.Handler {
	return &ramHandler{log: r, next: next}
}

// Lines returns the kept lines, oldest first.
func (r *RAMLog) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]string(nil), r.lines[:r.next]...)
	}
	out := make([]string, 0, len(r.lines))
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

// TotalLinesWritten returns the number of lines ever recorded.
func (r *RAMLog) TotalLinesWritten() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

func (r *RAMLog) add(line string) {
	r.mu.Lock()
	r.lines[r.next] = line
	r.next++
	if r.next == len(r.lines) {
		r.next, r.full = 0, true
	}
	r.total++
	r.mu.Unlock()
}

// logLine formats one line as MongoDB does: {"t":{"$date":...},"s":...,
// "c":...,"id":...,"ctx":...,"msg":...,"attr":{...}}.
func logLine(t time.Time, level slog.Level, component, ctx, msg string, attrs map[string]any, tags ...string) string {
	type date struct {
		Date string `json:"$date"`
	}
	type line struct {
		T    date           `json:"t"`
		S    string         `json:"s"`
		C    string         `json:"c"`
		ID   int            `json:"id"`
		Ctx  string         `json:"ctx"`
		Msg  string         `json:"msg"`
		Attr map[string]any `json:"attr,omitempty"`
		Tags []string       `json:"tags,omitempty"`
	}
	s := "I"
	switch {
	case level >= slog.LevelError:
		s = "E"
	case level >= slog.LevelWarn:
		s = "W"
	case level < slog.LevelInfo:
		s = "D1"
	}
	if component == "" {
		component = "-"
	}
	l := line{
		T:    date{t.UTC().Format("2006-01-02T15:04:05.000+00:00")},
		S:    s,
		C:    component,
		Ctx:  ctx,
		Msg:  msg,
		Attr: attrs,
		Tags: tags,
	}
	b, err := json.Marshal(l)
	if err != nil {
		// An attribute that JSON cannot hold: keep the message.
		l.Attr = nil
		b, _ = json.Marshal(l)
	}
	return string(b)
}

type ramHandler struct {
	log    *RAMLog
	next   slog.Handler
	attrs  []slog.Attr
	prefix string
}

func (h *ramHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if h.next != nil && h.next.Enabled(ctx, l) {
		return true
	}
	return l >= slog.LevelInfo
}

func (h *ramHandler) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelInfo {
		attrs := map[string]any{}
		component, ctxName := "", "mayfly"
		add := func(a slog.Attr, prefix string) {
			switch a.Key {
			case "component":
				component = a.Value.String()
				return
			case "ctx":
				ctxName = a.Value.String()
				return
			}
			addAttr(attrs, prefix, a)
		}
		for _, a := range h.attrs {
			add(a, "")
		}
		rec.Attrs(func(a slog.Attr) bool {
			add(a, h.prefix)
			return true
		})
		if len(attrs) == 0 {
			attrs = nil
		}
		h.log.add(logLine(rec.Time, rec.Level, component, ctxName, rec.Message, attrs))
	}
	if h.next != nil && h.next.Enabled(ctx, rec.Level) {
		return h.next.Handle(ctx, rec)
	}
	return nil
}

func addAttr(m map[string]any, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		for _, g := range v.Group() {
			addAttr(m, prefix+a.Key+".", g)
		}
		return
	}
	var x any
	switch v.Kind() {
	case slog.KindString:
		x = v.String()
	case slog.KindInt64:
		x = v.Int64()
	case slog.KindUint64:
		x = v.Uint64()
	case slog.KindFloat64:
		x = v.Float64()
	case slog.KindBool:
		x = v.Bool()
	case slog.KindDuration:
		x = v.Duration().String()
	case slog.KindTime:
		x = v.Time().UTC().Format(time.RFC3339Nano)
	default:
		if err, ok := v.Any().(error); ok {
			x = err.Error()
		} else {
			x = v.String()
		}
	}
	m[prefix+a.Key] = x
}

func (h *ramHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		if h.prefix != "" && a.Key != "component" && a.Key != "ctx" {
			a.Key = h.prefix + a.Key
		}
		n.attrs = append(n.attrs, a)
	}
	if h.next != nil {
		n.next = h.next.WithAttrs(attrs)
	}
	return &n
}

func (h *ramHandler) WithGroup(name string) slog.Handler {
	n := *h
	n.prefix = h.prefix + name + "."
	if h.next != nil {
		n.next = h.next.WithGroup(name)
	}
	return &n
}
