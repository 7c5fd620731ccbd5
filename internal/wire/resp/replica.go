package resp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Replica is what the RESP side knows of the replica set its server is a
// member of.
type Replica interface {
	// Writable reports whether this member accepts writes (the primary).
	Writable() bool
	// Role describes the set as this member sees it.
	Role() ReplicaRole
	// WaitReplicas waits until at least n other members have applied every
	// write this member has applied so far, or ctx ends, and returns how
	// many have.
	WaitReplicas(ctx context.Context, n int) int
}

// ReplicaRole is a member's view of its set, in Redis's terms.
type ReplicaRole struct {
	// Master reports whether this member is the primary.
	Master bool
	// MasterHost and MasterPort are the primary's Redis address; empty
	// when no primary is known.
	MasterHost string
	MasterPort int
	// Offset is how far this member has applied the replicated log.
	Offset int64
	// LinkUp reports, on a replica, whether the primary answers.
	LinkUp bool
	// Replicas are the other members, on the primary.
	Replicas []ReplicaPeer
}

// ReplicaPeer is another member as the primary sees it.
type ReplicaPeer struct {
	Host   string
	Port   int
	Offset int64
	Online bool
}

// errReadOnlyReplica is Redis's refusal of a write on a replica.
const errReadOnlyReplica replyErr = "READONLY You can't write against a read only replica."

// errWaitOnReplica is Redis's refusal of WAIT on a replica.
const errWaitOnReplica = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."

// checkReplica refuses, on a follower, a command that writes: one
// flagged write, or EXEC of a transaction that queued one. Scripts that
// write are refused by their first write, through kv.ErrNotPrimary.
func (c *client) checkReplica(cmd *command) error {
	r := c.s.opts.Replica
	if r == nil {
		return nil
	}
	writes := hasFlag(cmd, "write")
	if !writes && cmd.name == "exec" && c.multi != nil {
		for _, q := range c.multi.cmds {
			if hasFlag(q.cmd, "write") {
				writes = true
				break
			}
		}
	}
	if writes && !r.Writable() {
		return errReadOnlyReplica
	}
	return nil
}

// waitReplicas is WAIT on a member of a replica set: it waits, with the
// store released, until n other members have applied this member's writes
// or timeoutMS passes (0 waits as long as it takes, until the server
// stops), and answers how many have.
func (x *cmdCtx) waitReplicas(r Replica, n, timeoutMS int64) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if timeoutMS > 0 {
		ctx, cancel = context.WithTimeout(ctx, time.Duration(timeoutMS)*time.Millisecond)
		defer cancel()
	}
	if n <= 0 {
		// Redis answers at once with the replicas already caught up.
		ctx, cancel = context.WithTimeout(ctx, time.Millisecond)
		defer cancel()
	}
	stop := x.s.stop
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var got int
	if err := x.tx.Yield(func() { got = r.WaitReplicas(ctx, int(max(n, 0))) }); err != nil {
		return err
	}
	x.w.Int(int64(got))
	return nil
}

// role writes ROLE's reply for a member of a replica set.
func role(x *cmdCtx, r Replica) {
	st := r.Role()
	if st.Master {
		x.w.Array(3)
		x.w.BulkString("master")
		x.w.Int(st.Offset)
		x.w.Array(len(st.Replicas))
		for _, p := range st.Replicas {
			x.w.Array(3)
			x.w.BulkString(p.Host)
			x.w.BulkString(strconv.Itoa(p.Port))
			x.w.BulkString(strconv.FormatInt(p.Offset, 10))
		}
		return
	}
	state := "connect"
	if st.LinkUp {
		state = "connected"
	}
	x.w.Array(5)
	x.w.BulkString("slave")
	x.w.BulkString(st.MasterHost)
	x.w.Int(int64(st.MasterPort))
	x.w.BulkString(state)
	x.w.Int(st.Offset)
}

// replicationInfo writes INFO replication's lines for a member of a
// replica set, through line.
func replicationInfo(r Replica, replID string, line func(name string, v any)) {
	st := r.Role()
	if st.Master {
		line("role", "master")
		line("connected_slaves", len(st.Replicas))
		for i, p := range st.Replicas {
			state := "online"
			if !p.Online {
				state = "wait_bgsave"
			}
			line(fmt.Sprintf("slave%d", i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=0", p.Host, p.Port, state, p.Offset))
		}
	} else {
		line("role", "slave")
		line("master_host", st.MasterHost)
		line("master_port", st.MasterPort)
		link := "down"
		if st.LinkUp {
			link = "up"
		}
		line("master_link_status", link)
		line("master_last_io_seconds_ago", 0)
		line("master_sync_in_progress", 0)
		line("slave_read_repl_offset", st.Offset)
		line("slave_repl_offset", st.Offset)
		line("slave_priority", 100)
		line("slave_read_only", 1)
		line("replica_announced", 1)
		line("connected_slaves", 0)
	}
	line("master_failover_state", "no-failover")
	line("master_replid", replID)
	line("master_replid2", strings.Repeat("0", 40))
	line("master_repl_offset", st.Offset)
	line("second_repl_offset", -1)
}

// readOnlyNoOp is READONLY and READWRITE: on a member of a replica set,
// no-ops that succeed, for cluster-aware clients that send them to
// replicas; on a standalone, Redis's answer without cluster support.
func readOnlyNoOp(x *cmdCtx) error {
	if x.s.opts.Replica == nil {
		return errClusterDisabled
	}
	x.w.OK()
	return nil
}
