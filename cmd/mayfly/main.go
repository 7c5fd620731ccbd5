// Command mayfly is the mayfly server and its command-line tools.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is the release of this binary; releases set it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	root := newRootCommand()
	if err := root.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "mayfly: %v\n", err)
		os.Exit(1)
	}
}

// newRootCommand builds the command tree; each subcommand lives in its own
// file.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "mayfly",
		Short:         "A database for data that has a lifespan",
		Long:          "mayfly stores documents (MongoDB wire protocol) and keys (Redis protocol) that expire on time, on one expiry engine.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newServeCommand(), newVersionCommand(), newBenchCommand(), newCheckCommand(), newTTLsCommand(), newOperationsCommand(), newReplicasCommand())
	return root
}
