package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/admin"
)

// newTTLsCommand is `mayfly ttls update|list`, as `gcloud firestore fields
// ttls` is for Firestore.
func newTTLsCommand() *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "ttls",
		Short: "Manage TTL policies: one expiry field per collection group",
		Long: `A TTL policy names one timestamp field for a collection group: the collection of
that name in every database, now and created later. A document expires when the
field's time plus the expiration offset has passed: a Date expires, an array at
its earliest Date, and null, a missing field or any other type never do. The
latest value counts: moving the field into the future postpones expiry.
Expired documents are hidden at once and deleted in rate-limited batches.

A collection group has at most one TTL field; a server holds at most 1,000.

Permissions (tokens of serve --admin-token-file): ttl.policies.list and
ttl.policies.get to view policies, ttl.policies.update to change them,
operations.list and operations.get to follow operations.`,
	}
	f.register(cmd)
	cmd.AddCommand(newTTLsUpdateCommand(&f), newTTLsListCommand(&f))
	return cmd
}

func newTTLsUpdateCommand(f *apiFlags) *cobra.Command {
	var (
		group           string
		enable, disable bool
		offset          string
		async, dryRun   bool
	)
	cmd := &cobra.Command{
		Use:   "update FIELD --collection-group=GROUP (--enable-ttl [--expiration-offset=D] | --disable-ttl)",
		Short: "Enable, re-offset or disable the TTL policy of a collection group",
		Long: `Enable a TTL policy on FIELD for a collection group, change its expiration
offset, or disable it.

Enabling builds an index of FIELD in every collection of the group; the command
waits for that operation and shows its progress (--async returns at once; the
operation goes on either way, see mayfly operations). Documents already expired
become eligible for deletion at once. Changing the offset is metadata only.

--dry-run reports how many documents enabling would make eligible for deletion
at once, their expiry times and how long deleting them would take at the
current rate, and changes nothing.`,
		Example: `  mayfly ttls update expireAt --collection-group=sessions --enable-ttl
  mayfly ttls update expireAt --collection-group=sessions --enable-ttl --expiration-offset=7d --dry-run
  mayfly ttls update expireAt --collection-group=sessions --disable-ttl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case group == "":
				return errors.New("--collection-group is required")
			case enable == disable:
				return errors.New("give exactly one of --enable-ttl and --disable-ttl")
			case disable && cmd.Flags().Changed("expiration-offset"):
				return errors.New("--expiration-offset applies only with --enable-ttl")
			case disable && dryRun:
				return errors.New("--dry-run previews --enable-ttl; disabling deletes nothing")
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			req := admin.UpdatePolicyRequest{Field: args[0], Enabled: &enable, ExpirationOffset: offset}
			out := cmd.OutOrStdout()
			if dryRun {
				res, err := c.DryRunPolicy(cmd.Context(), group, req)
				if err != nil {
					return err
				}
				if f.json() {
					return printJSON(out, res)
				}
				return printDryRun(out, res)
			}
			op, err := c.UpdatePolicy(cmd.Context(), group, req)
			if err != nil {
				return err
			}
			if !async && !op.Done {
				op, err = waitWithProgress(cmd.Context(), c, op, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
			}
			if f.json() {
				err = printJSON(out, op)
			} else {
				err = describeOperation(out, op)
			}
			if err == nil && op.State == "NEEDS_REPAIR" {
				err = fmt.Errorf("operation %s failed: %s", op.ID, op.Error)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&group, "collection-group", "", "the collection group (collection name, in every database)")
	fl.BoolVar(&enable, "enable-ttl", false, "enable the policy on FIELD (or change its offset)")
	fl.BoolVar(&disable, "disable-ttl", false, "disable the policy on FIELD")
	fl.StringVar(&offset, "expiration-offset", "", "added to FIELD's time: a `DURATION` such as 90s, 1h30m or 7d")
	fl.BoolVar(&async, "async", false, "return once the operation has started instead of waiting for it")
	fl.BoolVar(&dryRun, "dry-run", false, "report what enabling would delete at once, and change nothing")
	return cmd
}

// pollInterval is how often a waiting update reads its operation.
const pollInterval = 200 * time.Millisecond

// waitWithProgress waits for op, drawing a progress bar on a terminal or
// writing a line per change otherwise. An interrupt stops the waiting, not
// the operation.
func waitWithProgress(ctx context.Context, c *admin.Client, op admin.Operation, w io.Writer) (admin.Operation, error) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	tty := isTerminal(w)
	last := ""
	show := func(o admin.Operation) {
		if tty {
			fmt.Fprint(w, progressBar(o))
			return
		}
		if line := o.State + ": " + progressLine(o); line != last {
			fmt.Fprintf(w, "%s %s\n", o.ID, line)
			last = line
		}
	}
	done, err := c.WaitOperation(ctx, op.ID, pollInterval, show)
	if tty {
		fmt.Fprintln(w)
	}
	if err != nil && ctx.Err() != nil {
		return done, fmt.Errorf("stopped waiting; operation %s goes on (mayfly operations describe %s)", op.ID, op.ID)
	}
	return done, err
}

// printDryRun prints a dry run for people.
func printDryRun(w io.Writer, d admin.DryRunResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Dry run: enabling TTL on %s.%s with expiration offset %s changes nothing yet.\n",
		d.CollectionGroup, d.Field, d.ExpirationOffset)
	fmt.Fprintf(tw, "Would delete at once:\t%s documents (%s scanned in %s collections)\n",
		count(d.WouldDelete), count(d.DocumentsScanned), count(int64(d.Collections)))
	if d.OldestExpiry != nil && d.NewestExpiry != nil {
		fmt.Fprintf(tw, "Their expiry times:\t%s .. %s\n", stamp(*d.OldestExpiry), stamp(*d.NewestExpiry))
	}
	est := "unknown: no deletion rate measured yet"
	if d.EstimatedDeleteSeconds != nil {
		est = seconds(*d.EstimatedDeleteSeconds) + " at the current deletion rate"
	}
	fmt.Fprintf(tw, "Estimated time to delete:\t%s\n", est)
	return tw.Flush()
}

func newTTLsListCommand(f *apiFlags) *cobra.Command {
	var group string
	cmd := &cobra.Command{
		Use:   "list [--collection-group=GROUP]",
		Short: "List TTL policies with their state, deletions and lag",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			pols, err := c.ListPolicies(cmd.Context(), group)
			if err != nil {
				return err
			}
			if f.json() {
				return printJSON(cmd.OutOrStdout(), pols)
			}
			return policyTable(cmd.OutOrStdout(), pols)
		},
	}
	cmd.Flags().StringVar(&group, "collection-group", "", "only the policy of this collection group")
	return cmd
}

// policyTable prints policies as a table.
func policyTable(w io.Writer, pols []admin.Policy) error {
	if len(pols) == 0 {
		_, err := fmt.Fprintln(w, "No TTL policies.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COLLECTION_GROUP\tFIELD\tSTATE\tOFFSET\tINDEXED\tDELETED\tLAG_P50\tLAG_P99\tBACKLOG\tOPERATION")
	for _, p := range pols {
		deleted, p50, p99, backlog := "-", "-", "-", "-"
		if s := p.Stats; s != nil {
			deleted = count(s.DeletedDocuments)
			if s.Lag.Count > 0 {
				p50, p99 = seconds(s.Lag.P50Seconds), seconds(s.Lag.P99Seconds)
			}
			if s.Backlog != nil {
				backlog = count(*s.Backlog)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\n", p.CollectionGroup, p.Field, p.State, p.ExpirationOffset,
			p.IndexedCollections, p.Collections, deleted, p50, p99, backlog, p.Operation)
	}
	return tw.Flush()
}
