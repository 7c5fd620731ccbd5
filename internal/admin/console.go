package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// The web console: the page at / and the JSON it reads, under
// /v1/console/.
//
//	GET /                            the page (embedded files)
//	GET /v1/console/timeline         Timeline: items due per interval, by source (?span=minute|hour|day|week, ?source=NAME, ?shiftSeconds=S)
//	GET /v1/console/live             Live: one sample per second for the last 15 minutes (?since=Unix ms)
//	GET /v1/console/sources          Sources: every expiry source with its rule and counters
//	GET /v1/console/storage          Storage: disk use by keyspace and the purge
//
// These endpoints only read: changes go through PATCH
// /v1/ttl/policies/{group} (a policy's offset) and PATCH
// /v1/ttl/indexes/{source} (a TTL index's expireAfterSeconds), with a
// token granting ttl.policies.update. The
// timeline and the due counts come from range walks of the sources'
// time-ordered indexes (expiry.Timeline), never from the items.

// ExpiryEngine is what the console reads of the expiry engine:
// *expiry.Engine.
type ExpiryEngine interface {
	Stats() expiry.Stats
	Timeline(ctx context.Context, edges []time.Time) ([]expiry.SourceTimeline, error)
}

// TTLIndexLister lists the TTL indexes: *docdb.Engine.
type TTLIndexLister interface {
	TTLIndexes() []docdb.TTLIndex
}

// KeyPrefixes counts a Redis database's due keys by key prefix:
// *kv.Store.
type KeyPrefixes interface {
	DuePrefixes(ctx context.Context, db int, edges []time.Time, top int) ([]kv.PrefixCounts, error)
}

// topPrefixes is how many key prefixes a Redis database's timeline shows;
// the others are summed into one row.
const topPrefixes = 8

// StorageReport is the storage figures the console shows.
type StorageReport struct {
	// DiskBytes is the size of every file of the data directory.
	DiskBytes uint64 `json:"diskBytes"`
	// Keyspaces are the estimated bytes on disk of each keyspace.
	Keyspaces []KeyspaceBytes `json:"keyspaces"`
	// PendingPurgeBytes estimates the bytes on disk that may still hold
	// deleted items: the files overlapping the spans waiting for a purge.
	PendingPurgeBytes uint64 `json:"pendingPurgeBytes"`
	// PendingSpans is the number of those spans.
	PendingSpans int `json:"pendingSpans"`
	// OldestPendingSeconds is the age of the oldest deletion not yet
	// purged, to compare with PurgeAfterSeconds (--purge-after).
	OldestPendingSeconds float64 `json:"oldestPendingSeconds"`
	PurgeAfterSeconds    float64 `json:"purgeAfterSeconds"`
	// PurgeCycles and PurgeFailures count the purge cycles since start.
	PurgeCycles   int64 `json:"purgeCycles"`
	PurgeFailures int64 `json:"purgeFailures"`
}

// KeyspaceBytes is the disk use of one keyspace.
type KeyspaceBytes struct {
	Name  string `json:"name"`
	Bytes uint64 `json:"bytes"`
}

// ConsoleOptions configure MountConsole.
type ConsoleOptions struct {
	// Engine is the expiry engine. Required.
	Engine ExpiryEngine
	// Policies, when set, adds each policy's field and offset to the
	// sources.
	Policies PolicyStore
	// TTLIndexes, when set, adds each TTL index's field, expireAfterSeconds
	// and partial filter to the sources.
	TTLIndexes TTLIndexLister
	// TTLIndexEditor, when set, serves PATCH /v1/ttl/indexes/{source}
	// (console_ttl.go): the preview and the change of a TTL index's
	// expireAfterSeconds, with Tokens granting ttl.policies.update.
	TTLIndexEditor TTLIndexEditor
	// KeyPrefixes, when set, splits the timeline of one Redis database's
	// keys (?source=redis_keys:dbN) by key prefix.
	KeyPrefixes KeyPrefixes
	// Storage, when set, serves /v1/console/storage.
	Storage func() (StorageReport, error)
	// Tokens and RequireAuth: with RequireAuth (the server's
	// --admin-require-auth-for-metrics), the console's JSON, like /metrics,
	// needs one of Tokens; otherwise it answers everyone. The page's files
	// stay open.
	Tokens      *TokenFile
	RequireAuth bool
	// Now is the clock of the timeline and of the live samples; nil means
	// time.Now.
	Now func() time.Time
	// Logger receives internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// Console serves the web console. Its live samples are taken by Run.
type Console struct {
	opts ConsoleOptions
	live *liveRing
}

// MountConsole adds the console's page and JSON endpoints to s. The
// console's live chart needs Run.
func MountConsole(s *Server, opts ConsoleOptions) (*Console, error) {
	if opts.Engine == nil {
		return nil, errors.New("admin: MountConsole without an expiry engine")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Console{opts: opts, live: newLiveRing(liveSamples)}
	guard := func(h http.HandlerFunc) http.Handler {
		if opts.RequireAuth {
			return opts.Tokens.requireAny(h)
		}
		return h
	}
	s.Handle("GET /v1/console/timeline", guard(c.timeline))
	s.Handle("GET /v1/console/live", guard(c.liveSeries))
	s.Handle("GET /v1/console/sources", guard(c.sources))
	s.Handle("GET /v1/console/storage", guard(c.storage))
	if opts.TTLIndexEditor != nil {
		c.mountTTLIndexes(s)
	}
	s.Handle("GET /{$}", consoleAssets())
	s.Handle("GET /console/", consoleAssets())
	return c, nil
}

// Run takes one live sample every second until ctx ends.
func (c *Console) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	c.Sample()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Sample()
		}
	}
}

// Sample records one live sample at the console's clock.
func (c *Console) Sample() { c.live.add(c.opts.Now(), c.opts.Engine.Stats()) }

func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	ae := apiError(err)
	if ae.Status == http.StatusInternalServerError {
		c.opts.Logger.Error("admin console", "path", r.URL.Path, "err", err)
	}
	writeError(w, ae)
}

// Spans of the timeline: how far ahead it looks and its bucket width.
var timelineSpans = map[string]struct {
	buckets int
	width   time.Duration
}{
	"minute": {60, time.Second},
	"hour":   {60, time.Minute},
	"day":    {96, 15 * time.Minute},
	"week":   {168, time.Hour},
}

// Timeline is the reply of /v1/console/timeline. Bucket i of a source
// counts its items due in (Edges[i], Edges[i+1]]; Backlog counts those due
// at or before Now (Edges[0]), which the sweeper has yet to delete.
type Timeline struct {
	Now           time.Time        `json:"now"`
	Span          string           `json:"span"`
	BucketSeconds float64          `json:"bucketSeconds"`
	Edges         []int64          `json:"edges"` // Unix ms
	Sources       []SourceTimeline `json:"sources"`
	// Prefixes split the one Redis database asked for by key prefix (the
	// part before the first ':'): the top ones by count, then "" for the
	// rest.
	Prefixes []SourceTimeline `json:"prefixes,omitempty"`
}

// SourceTimeline is one source's row of the timeline.
type SourceTimeline struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Backlog int64   `json:"backlog"`
	Counts  []int64 `json:"counts"`
}

func (c *Console) timeline(w http.ResponseWriter, r *http.Request) {
	span := r.URL.Query().Get("span")
	if span == "" {
		span = "hour"
	}
	sp, ok := timelineSpans[span]
	if !ok {
		writeError(w, badRequest("span must be minute, hour, day or week, not %q", span))
		return
	}
	// shiftSeconds previews a change of offset: every due time moves by
	// it, so the items due in a bucket after the change are those due in
	// the bucket shifted back before it.
	var shift time.Duration
	if v := r.URL.Query().Get("shiftSeconds"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.Abs(f) > 1e10 {
			writeError(w, badRequest("shiftSeconds must be a number of seconds, not %q", v))
			return
		}
		shift = time.Duration(f * float64(time.Second))
	}
	now := c.opts.Now()
	edges := make([]time.Time, sp.buckets+1)
	at := make([]time.Time, len(edges))
	for i := range edges {
		edges[i] = now.Add(time.Duration(i) * sp.width)
		at[i] = edges[i].Add(-shift)
	}
	rows, err := c.opts.Engine.Timeline(r.Context(), at)
	if err != nil && len(rows) == 0 {
		c.fail(w, r, err)
		return
	}
	if err != nil {
		c.opts.Logger.Warn("admin console: timeline", "err", err)
	}
	out := Timeline{Now: now, Span: span, BucketSeconds: sp.width.Seconds(), Edges: expiry.EdgesMillis(edges), Sources: []SourceTimeline{}}
	only := r.URL.Query().Get("source")
	for _, row := range rows {
		if only != "" && row.Source != only {
			continue
		}
		out.Sources = append(out.Sources, bucketsOf(row.Source, string(row.Kind), row.DueBefore))
	}
	if only != "" && len(out.Sources) == 0 {
		writeError(w, &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf("no expiry source %q", only)})
		return
	}
	var db int
	if _, err := fmt.Sscanf(only, "redis_keys:db%d", &db); err == nil && c.opts.KeyPrefixes != nil {
		prefixes, err := c.opts.KeyPrefixes.DuePrefixes(r.Context(), db, at, topPrefixes)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		for _, p := range prefixes {
			out.Prefixes = append(out.Prefixes, bucketsOf(p.Prefix, out.Sources[0].Kind, p.DueBefore))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// Sources is the reply of /v1/console/sources.
type Sources struct {
	Now     time.Time     `json:"now"`
	Sources []SourceEntry `json:"sources"`
}

// SourceEntry is one row of the sources table.
type SourceEntry struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Rule says what expires, for people ("app.sessions createdAt + 3600s").
	Rule string `json:"rule"`
	// Field is the date field of a TTL index or policy.
	Field string `json:"field,omitempty"`
	// ExpireAfterSeconds is a TTL index's; OffsetSeconds a policy's.
	ExpireAfterSeconds *int64   `json:"expireAfterSeconds,omitempty"`
	OffsetSeconds      *float64 `json:"offsetSeconds,omitempty"`
	// PartialFilter is a TTL index's partialFilterExpression as extended
	// JSON.
	PartialFilter string `json:"partialFilter,omitempty"`
	// Group is a policy's collection group, the key of its PATCH.
	Group string `json:"group,omitempty"`
	// Items counts the items that have an expiry; DueNow those due at or
	// before Now; both from a walk of the index.
	Items  int64 `json:"items"`
	DueNow int64 `json:"dueNow"`
	// NextDue is the earliest due time the sweeper last saw.
	NextDue *time.Time `json:"nextDue,omitempty"`
	// Deleted counts the items deleted since start.
	Deleted int64    `json:"deleted"`
	Lag     LagStats `json:"lag"`
}

func (c *Console) sources(w http.ResponseWriter, r *http.Request) {
	now := c.opts.Now()
	// The last edge is past every due time, so it counts every item.
	rows, err := c.opts.Engine.Timeline(r.Context(), []time.Time{now, expiry.Forever})
	if err != nil && len(rows) == 0 {
		c.fail(w, r, err)
		return
	}
	counts := map[string][]int64{}
	for _, row := range rows {
		counts[row.Source] = row.DueBefore
	}
	ttl := map[string]docdb.TTLIndex{}
	if c.opts.TTLIndexes != nil {
		for _, t := range c.opts.TTLIndexes.TTLIndexes() {
			ttl[t.Source] = t
		}
	}
	pols := map[string]policy.Policy{}
	if c.opts.Policies != nil {
		list, err := c.opts.Policies.ListPolicies(r.Context())
		if err != nil {
			c.fail(w, r, err)
			return
		}
		for _, p := range list {
			pols[p.Source] = p
		}
	}
	out := Sources{Now: now, Sources: []SourceEntry{}}
	for _, ss := range c.opts.Engine.Stats().Sources {
		e := SourceEntry{Name: ss.Name, Kind: string(ss.Kind), Rule: ss.Name, Deleted: ss.DeletedItems, Lag: lagJSON(ss.Lag)}
		if n, ok := counts[ss.Name]; ok {
			e.DueNow, e.Items = n[0], n[1]
		}
		if ss.HasNext {
			at := ss.NextDue
			e.NextDue = &at
		}
		if t, ok := ttl[ss.Name]; ok {
			e.Field = t.Field
			secs := t.ExpireAfterSeconds
			e.ExpireAfterSeconds = &secs
			e.Rule = fmt.Sprintf("%s.%s: %s + %ds", t.DB, t.Collection, t.Field, secs)
			e.PartialFilter = t.PartialFilter
		}
		if p, ok := pols[ss.Name]; ok {
			e.Field, e.Group = p.Field, p.Group
			secs := p.Offset.Seconds()
			e.OffsetSeconds = &secs
			e.Rule = fmt.Sprintf("policy on collection group %s: %s + %s", p.Group, p.Field, policy.FormatOffset(p.Offset))
		}
		out.Sources = append(out.Sources, e)
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *Console) storage(w http.ResponseWriter, r *http.Request) {
	if c.opts.Storage == nil {
		writeError(w, &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no storage report on this server"})
		return
	}
	rep, err := c.opts.Storage()
	if err != nil {
		c.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// lagJSON summarises a lag histogram.
func lagJSON(h expiry.Histogram) LagStats {
	return LagStats{Count: h.Count, P50Seconds: h.P50().Seconds(), P99Seconds: h.P99().Seconds(), MaxSeconds: h.Max.Seconds()}
}

// bucketsOf turns cumulative counts at the edges into the backlog (the
// first edge is now) and the count of each bucket.
func bucketsOf(name, kind string, dueBefore []int64) SourceTimeline {
	st := SourceTimeline{Name: name, Kind: kind, Backlog: dueBefore[0], Counts: make([]int64, len(dueBefore)-1)}
	for i := range st.Counts {
		st.Counts[i] = dueBefore[i+1] - dueBefore[i]
	}
	return st
}
