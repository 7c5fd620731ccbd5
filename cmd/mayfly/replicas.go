package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/admin"
)

// newReplicasCommand is `mayfly replicas list|add|remove`, the replica
// set's membership over the admin API's /v1/replicas.
func newReplicasCommand() *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "replicas",
		Short: "List, add and remove the members of a replica set",
		Long: `A member of a replica set is named by its raft address (its --raft-addr). list asks
any member; add and remove must be sent to the primary's admin address (another
member answers FAILED_PRECONDITION naming the primary). A new member is started
first with --replica-set and its own --raft-addr, then added: it catches up from
a snapshot, then from the log.`,
	}
	f.register(cmd)
	show := func(cmd *cobra.Command, members []admin.Replica) error {
		if f.json() {
			return printJSON(cmd.OutOrStdout(), members)
		}
		return replicaTable(cmd.OutOrStdout(), members)
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the members with their state and addresses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			members, err := c.ListReplicas(cmd.Context())
			if err != nil {
				return err
			}
			return show(cmd, members)
		},
	}
	add := &cobra.Command{
		Use:   "add RAFT_ADDR",
		Short: "Add the member listening on RAFT_ADDR as a voter",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			members, err := c.AddReplica(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return show(cmd, members)
		},
	}
	remove := &cobra.Command{
		Use:   "remove RAFT_ADDR",
		Short: "Remove the member whose raft address is RAFT_ADDR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			members, err := c.RemoveReplica(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return show(cmd, members)
		},
	}
	cmd.AddCommand(list, add, remove)
	return cmd
}

// replicaTable prints the members as a table.
func replicaTable(w io.Writer, members []admin.Replica) error {
	if len(members) == 0 {
		_, err := fmt.Fprintln(w, "No members: this server is not a replica set member.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tMONGO\tRESP\tAPPLIED\tSELF")
	for _, m := range members {
		self := ""
		if m.Self {
			self = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", m.ID, m.State, dash(m.MongoAddr), dash(m.RespAddr), m.AppliedIndex, self)
	}
	return tw.Flush()
}

// dash is s, or "-" when it is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
