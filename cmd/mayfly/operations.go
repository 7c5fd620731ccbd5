package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/admin"
)

// newOperationsCommand is `mayfly operations list|describe`, as
// `gcloud firestore operations` is for Firestore.
func newOperationsCommand() *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "operations",
		Short: "List and describe long-running operations (TTL policy changes)",
		Long: `Every change of a TTL policy is a long-running operation on the server. Enabling a
policy builds an index of its field in every collection of the group: that
operation is CREATING while it runs (with a progress estimate) and ends ACTIVE,
or NEEDS_REPAIR if it failed. Disabling a policy or changing its offset is done at
once. Operations survive restarts; an interrupted build resumes.`,
	}
	f.register(cmd)
	list := &cobra.Command{
		Use:   "list",
		Short: "List running and recent operations, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			ops, err := c.ListOperations(cmd.Context())
			if err != nil {
				return err
			}
			if f.json() {
				return printJSON(cmd.OutOrStdout(), ops)
			}
			return operationTable(cmd.OutOrStdout(), ops)
		},
	}
	describe := &cobra.Command{
		Use:   "describe ID",
		Short: "Show one operation with its progress",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			op, err := c.GetOperation(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if f.json() {
				return printJSON(cmd.OutOrStdout(), op)
			}
			return describeOperation(cmd.OutOrStdout(), op)
		},
	}
	cmd.AddCommand(list, describe)
	return cmd
}

// operationTable prints operations as a table.
func operationTable(w io.Writer, ops []admin.Operation) error {
	if len(ops) == 0 {
		_, err := fmt.Fprintln(w, "No operations.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tCOLLECTION_GROUP\tFIELD\tSTATE\tDONE\tPROGRESS\tSTART\tEND")
	for _, op := range ops {
		end := "-"
		if op.EndTime != nil {
			end = stamp(*op.EndTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", op.ID, op.Type, op.CollectionGroup, op.Field,
			op.State, op.Done, shortProgress(op), stamp(op.StartTime), end)
	}
	return tw.Flush()
}

// shortProgress is an operation's progress in a table cell.
func shortProgress(op admin.Operation) string {
	if op.Type != "ENABLE_TTL" {
		return "-"
	}
	return fmt.Sprintf("%s/%s", count(op.Progress.DocumentsScanned), count(op.Progress.DocumentsEstimate))
}

// progressLine describes an operation's progress in words.
func progressLine(op admin.Operation) string {
	p := op.Progress
	pct := 100
	if p.DocumentsEstimate > 0 {
		pct = int(100 * p.DocumentsScanned / p.DocumentsEstimate)
	}
	return fmt.Sprintf("%s of %s documents scanned (%d%%), %s expired found, %s deleted",
		count(p.DocumentsScanned), count(p.DocumentsEstimate), pct, count(p.ExpiredFound), count(p.Deleted))
}

// describeOperation prints one operation, a field per line.
func describeOperation(w io.Writer, op admin.Operation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	end := "-"
	if op.EndTime != nil {
		end = stamp(*op.EndTime)
	}
	rows := [][2]string{
		{"id", op.ID},
		{"type", op.Type},
		{"collectionGroup", op.CollectionGroup},
		{"field", op.Field},
		{"expirationOffset", op.ExpirationOffset},
		{"state", op.State},
		{"done", fmt.Sprint(op.Done)},
		{"progress", progressLine(op)},
		{"startTime", stamp(op.StartTime)},
		{"endTime", end},
	}
	if op.Error != "" {
		rows = append(rows, [2]string{"error", op.Error})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}

// progressBar draws an operation's progress on one terminal line.
func progressBar(op admin.Operation) string {
	const width = 30
	p := op.Progress
	frac := 1.0
	if p.DocumentsEstimate > 0 {
		frac = min(float64(p.DocumentsScanned)/float64(p.DocumentsEstimate), 1)
	}
	filled := int(frac * width)
	return fmt.Sprintf("\r[%s%s] %3d%%  %s/%s documents  %s expired  %s deleted  %s",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), int(frac*100),
		count(p.DocumentsScanned), count(p.DocumentsEstimate), count(p.ExpiredFound), count(p.Deleted), op.State)
}
