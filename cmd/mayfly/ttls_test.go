package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/admin"
)

// Ensure that the tables and progress displays people read say what the
// API returned.
func TestTTLRendering(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	end := start.Add(90 * time.Second)
	backlog := int64(12)
	op := admin.Operation{ID: "op-3", Type: "ENABLE_TTL", CollectionGroup: "sessions", Field: "expireAt", ExpirationOffset: "7d",
		State: "CREATING", StartTime: start, Progress: admin.Progress{DocumentsScanned: 1250, DocumentsEstimate: 5000, ExpiredFound: 40, Deleted: 7}}
	cases := []struct {
		name string
		got  func() string
		want []string
	}{
		{"count", func() string { return count(1234567) + " " + count(-1000) + " " + count(999) }, []string{"1,234,567 -1,000 999"}},
		{"progress line", func() string { return progressLine(op) }, []string{"1,250 of 5,000 documents scanned (25%), 40 expired found, 7 deleted"}},
		{"progress bar", func() string { return progressBar(op) }, []string{"\r[#######.......................]  25%  1,250/5,000 documents  40 expired  7 deleted  CREATING"}},
		{"describe", func() string {
			var b strings.Builder
			done := op
			done.State, done.Done, done.EndTime, done.Error = "NEEDS_REPAIR", true, &end, "disk full"
			describeOperation(&b, done)
			return b.String()
		}, []string{"id:                op-3\n", "state:             NEEDS_REPAIR\n", "endTime:           2026-03-01T12:01:30Z\n", "error:             disk full\n"}},
		{"operations table", func() string {
			var b strings.Builder
			operationTable(&b, []admin.Operation{op, {ID: "op-4", Type: "DISABLE_TTL", State: "DISABLED", Done: true, StartTime: start, EndTime: &end}})
			return b.String()
		}, []string{"ID    TYPE         COLLECTION_GROUP", "op-3  ENABLE_TTL   sessions          expireAt  CREATING  false  1,250/5,000", "op-4  DISABLE_TTL"}},
		{"policies table", func() string {
			var b strings.Builder
			policyTable(&b, []admin.Policy{{CollectionGroup: "sessions", Field: "expireAt", State: "ACTIVE", ExpirationOffset: "0s", Collections: 2, IndexedCollections: 2, Operation: "op-1",
				Stats: &admin.PolicyStats{DeletedDocuments: 4321, Backlog: &backlog, Lag: admin.LagStats{Count: 4321, P50Seconds: 0.0123, P99Seconds: 2.345}}}})
			return b.String()
		}, []string{"COLLECTION_GROUP  FIELD     STATE   OFFSET  INDEXED  DELETED  LAG_P50  LAG_P99  BACKLOG  OPERATION", "sessions          expireAt  ACTIVE  0s      2/2      4,321    12ms     2.3s     12       op-1"}},
		{"empty tables", func() string {
			var b strings.Builder
			policyTable(&b, nil)
			operationTable(&b, nil)
			return b.String()
		}, []string{"No TTL policies.\nNo operations.\n"}},
		{"dry run", func() string {
			var b strings.Builder
			est := 2.5
			printDryRun(&b, admin.DryRunResult{CollectionGroup: "sessions", Field: "expireAt", ExpirationOffset: "1h0m0s", Collections: 3, DocumentsScanned: 10000, WouldDelete: 1500,
				OldestExpiry: &start, NewestExpiry: &end, EstimatedDeleteSeconds: &est})
			printDryRun(&b, admin.DryRunResult{CollectionGroup: "s", Field: "f", ExpirationOffset: "0s"})
			return b.String()
		}, []string{"Dry run: enabling TTL on sessions.expireAt with expiration offset 1h0m0s changes nothing yet.",
			"Would delete at once:      1,500 documents (10,000 scanned in 3 collections)",
			"Their expiry times:        2026-03-01T12:00:00Z .. 2026-03-01T12:01:30Z",
			"Estimated time to delete:  2.5s at the current deletion rate",
			"Estimated time to delete:  unknown: no deletion rate measured yet"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.got()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
