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
(replaying the write-ahead log) and check that every secondary index agrees
with the documents and the stored counters match what is stored. It prints
"ok" and exits 0, or prints the first violation and exits 1. It refuses a
directory that a running server holds.`,
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
