package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/server"
)

func newCheckCommand() *cobra.Command {
	var dir, logLevel string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the data directory of a stopped server",
		Long: `Verify the data directory of a stopped server: open it as a restart would
(replaying the write-ahead log, and removing the entries of an index build a
crash interrupted) and check both data models. Documents: every secondary
index agrees with the documents, the stored counters match what is stored,
and every document, index entry and counter has an owner in the catalog.
Redis keys: the expiry indexes agree with the keys' and hash fields'
expiry times, the counters match a recount, element counts match the stored
elements, sorted set score indexes match their members, and old collection
versions are either in use by one key or awaiting collection. It prints "ok"
and exits 0, or prints what it found (the first document violation, every
key-value problem, one per line) and exits 1. It refuses a directory that a
running server holds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(cmd.ErrOrStderr(), logLevel, "text")
			if err != nil {
				return err
			}
			if err := server.Check(cmd.Context(), dir, logger); err != nil {
				return fmt.Errorf("check %s: %w", dir, err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", server.DefaultConfig().Dir, "data directory")
	cmd.Flags().StringVar(&logLevel, "log-level", slog.LevelWarn.String(), "debug, info, warn or error")
	return cmd
}
