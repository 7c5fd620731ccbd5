package replica

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

// Raft commits an entry once a majority of members have stored it in
// their logs. Under --durability=sync each member fsyncs its log before
// answering, so a committed entry is on disk on a majority; under group a
// member fsyncs within the group interval, so a committed entry may still
// be only in the operating system's buffers of some of them. WaitDurable
// closes that gap for the writes that ask (MongoDB's j: true): it syncs
// this member's log and asks the others, with a sync request on their
// raft address, to sync theirs, until a majority of voters hold the entry
// on disk.

// syncRequest is the first byte of a connection to a raft address that
// asks the member to fsync its raft log and answer its state with the
// synced index.
const syncRequest = 'S'

// durableAsk bounds one sync request, so that a member that does not
// answer (paused, cut off) does not hold up the round that asks the
// others; it is asked again next round.
const durableAsk = time.Second

// durablePoll is how long a member waits before asking again the members
// that could not confirm an entry on disk.
const durablePoll = 10 * time.Millisecond

// syncedState fsyncs this member's raft log and returns its state with
// the last index the sync covers.
func (n *Node) syncedState() (MemberState, error) {
	st := n.selfState()
	if !n.started.Load() {
		return st, fmt.Errorf("replica: sync request before raft started")
	}
	last := n.raft.LastIndex()
	if n.raftDB != nil {
		if err := n.raftDB.SyncWAL(); err != nil {
			return st, fmt.Errorf("replica: sync the raft log: %w", err)
		}
	}
	st.SyncedIndex = last
	return st, nil
}

// WaitDurable waits until a majority of the set's voters, this member
// included, have the log entry at index fsynced, or ctx ends. Under sync
// durability raft's commit already means so and it returns at once.
func (n *Node) WaitDurable(ctx context.Context, index uint64) error {
	if n.cfg.Durability == storage.DurabilitySync {
		return nil
	}
	voters := n.servers()
	need := 0
	for _, srv := range voters {
		if srv.Suffrage == raft.Voter {
			need++
		}
	}
	need = need/2 + 1
	done := map[string]bool{}
	for {
		// Ask every voter not yet confirmed at once; the round ends when
		// enough have confirmed or every answer is in, so that one that
		// does not answer holds up only the rounds that still need it.
		results := make(chan string)
		asked := 0
		for _, srv := range voters {
			addr := string(srv.Address)
			if done[addr] || srv.Suffrage != raft.Voter {
				continue
			}
			asked++
			go func() {
				var st MemberState
				var err error
				if addr == n.cfg.RaftAddr {
					st, err = n.syncedState()
				} else {
					st, err = fetch(addr, syncRequest, durableAsk)
				}
				if err != nil || st.SyncedIndex < index {
					addr = ""
				}
				results <- addr
			}()
		}
		got := len(done)
		for ; asked > 0 && got < need; asked-- {
			if addr := <-results; addr != "" {
				done[addr] = true
				got++
			}
		}
		if asked > 0 {
			go func(left int) { // drain the slow ones' answers
				for ; left > 0; left-- {
					<-results
				}
			}(asked)
		}
		if got >= need {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replica: entry %d on disk on %d of the %d members it needs: %w", index, got, need, ctx.Err())
		case <-time.After(durablePoll):
		}
	}
}
