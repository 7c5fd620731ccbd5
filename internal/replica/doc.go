// Package replica makes a mayfly data directory one member of a replica
// set whose consensus is hashicorp/raft: it replicates the storage layer's
// committed batches, so every member applies the same writes in the same
// order and every member's store ends identical.
//
// # What is replicated
//
// Every model writes each change as one storage batch (a MongoDB write with
// its index entries, change-log record and catalog counters; a Redis
// pipeline chunk with its metadata, elements and expiry index; a sweep
// batch of the expiry engine). On a member, the store's Replicator (this
// package's Node) takes over Batch.Commit: the primary proposes the
// batch's representation as one raft log entry, and the commit returns
// once raft has committed the entry (it is in a majority of members' logs)
// and this member's state machine (FSM) has applied it to its own store.
// The node keeps at most two entries in flight: the batches proposed
// meanwhile, by any model, are joined in call order into the next entry
// (group commit, group.go), so that concurrent commits share one log
// write, one AppendEntries and one apply on every member. A model that
// commits one batch at a time can propose without waiting (Node.Propose,
// storage's Batch.Propose) and wait outside its locks, as kv does, so that
// its batches travel together; docdb, which holds a collection's lock
// across the commit, groups the concurrent writes of one collection into
// one batch first. The state machine applies the entries raft hands it at
// once (a BatchingFSM) as one storage commit.
//
// Because what travels is the batch, not the command, effects that are
// random or time-dependent replicate as effects: SPOP's chosen members
// travel as the deletes it wrote, a relative TTL as the absolute expiry
// time written to the metadata and the expiry index, $currentDate as the
// value written in the document. Followers never evaluate a command.
//
// Each entry starts with the proposing process's random origin id, so that
// a member applying an entry tells its own writes (whose effect its models
// already hold in memory) from foreign ones (Apply's OnForeign callback).
//
// # Models' in-memory state on followers
//
// The models keep state beside storage: kv its metadata cache and
// per-database counters, docdb its catalog cache and counters, the expiry
// engine its wake-ups. A batch applied on a follower bypasses the models,
// so the node calls Config.OnForeign after every foreign batch (and after
// a snapshot restore); the server then marks kv stale, so that its next
// command first rebuilds the metadata cache and counters from storage
// (kv.Store.MarkStale), and reloads docdb's catalog at most once per the
// server's reload interval (docdb.Engine.Reload). Document reads on a follower are therefore
// eventually consistent, as MongoDB's secondary reads are. When a member is
// promoted, it first waits for raft's barrier (every earlier entry is
// applied), rebuilds the models' state (the MongoDB side's sessions take
// the transaction numbers of their replicated retry records, its cluster
// clock the replicated bound, the change log its replicated records), and
// only then accepts writes.
//
// # Concerns
//
// Node.WaitReplicas waits until other members applied a write (MongoDB's
// writeConcern w: N, Redis's WAIT); Node.Voters bounds the N a write may
// ask for; Node.VerifyLeader confirms leadership with a majority before a
// linearizable read; Node.WaitDurable waits until a majority has a write
// fsynced in its raft log (writeConcern j: true, durable.go).
//
// # Freezing
//
// Node.Freeze and Node.StepDownFor (MongoDB's replSetFreeze and
// replSetStepDown) keep a member from serving as primary for a while:
// raft cannot stop a member from campaigning, so a frozen member that wins
// the leadership hands it over at once and never opens writes
// (freeze.go).
//
// # Changes of the view
//
// Node.Changes counts the changes of what Status reports of roles and
// membership (this member's role and term, the leader it knows, the
// configuration, each member's addresses, vote, role, health and freeze)
// and hands out a channel closed at the next change (changes.go), so that
// a waiter (hello's topologyVersion on the MongoDB side) blocks until the
// view moves on. The view is compared again after raft's leader and peer
// observations, a change of this member's role, a freeze and each poll of
// the other members.
//
// # Expiry
//
// Only the primary's sweeper runs: the server starts the expiry engine and
// the Redis garbage collector when the member becomes primary and stops
// them when it steps down. Followers hide expired items by the same
// strict-visibility rule as the primary (an item is invisible once its
// time is past, on every member at once), never delete them on their own,
// and apply the primary's deletions when they arrive. A promoted follower
// starts sweeping from the expiry indexes it replicated, where the old
// primary stopped.
//
// # Writes on a follower
//
// A follower's Writable and Replicate return errors wrapping
// storage.ErrNotPrimary. The wire edges refuse write commands before they
// run: MongoDB's NotWritablePrimary (10107, "not primary") and Redis's
// "-READONLY You can't write against a read only replica.".
//
// # Snapshots
//
// A raft snapshot is a consistent Pebble snapshot of the whole store
// streamed as length-prefixed key/value pairs, taken after the write-ahead
// log is synced; restoring one replaces the store's content in chunks and
// syncs it. A member that has fallen behind the leader's log, or whose
// data directory was wiped, catches up from the latest snapshot, then from
// the log. On restart a member does not restore its snapshot: its store
// already holds at least the snapshot's state, and raft re-applies the log
// entries after it; re-applying a suffix of batches (blind writes, in
// order) to a store that already has them leaves it as it was.
//
// # Durability
//
// The raft log and stable store live in a second store under the data
// directory (raft/), with the member's --durability. Under sync, an entry
// is fsynced in a majority of logs before any write is acknowledged, so a
// simultaneous power loss of every member loses nothing acknowledged.
// Under group, each member fsyncs its log at least every group interval:
// a power loss of a majority at once can lose the writes acknowledged in
// roughly the last interval, except those acknowledged with j: true (a crash of processes, not machines, loses
// nothing the operating system had received). The data store of a member
// may lag its log after a crash; the log's re-application on restart
// repairs it.
//
// # Membership and addresses
//
// A member is identified by its raft address. The first start of a member
// whose raft log is empty bootstraps the set with every --peers address
// as a voter (bootstrapping the same configuration on every member is
// harmless); restarts rejoin. Each member answers, on its raft address, a
// small request for its advertised client addresses (info.go), so every
// member can list the others' MongoDB and Redis addresses, and a request
// to fsync its log (durable.go). Config.BindAddr lets a member listen on
// another address than the one the others dial (a proxy or NAT between).
package replica
