package replica

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

// Config is one member's replica set settings.
type Config struct {
	// SetName is the replica set's name (MongoDB's setName).
	SetName string
	// RaftAddr is this member's raft address, host:port, which is also its
	// identity in the set.
	RaftAddr string
	// BindAddr, when not empty, is where the member listens for raft
	// instead of RaftAddr, which the other members dial (through a proxy
	// or a NAT that forwards it here).
	BindAddr string
	// Peers are the raft addresses of every member the set starts with,
	// this one included; used only by the first start (bootstrap).
	Peers []string
	// Info is what this member advertises to the others.
	Info MemberInfo
	// Store is the member's data store; the node becomes its Replicator.
	Store *storage.Store
	// Durability is the raft log store's durability.
	Durability storage.Durability
	// Logger receives the node's and raft's log lines.
	Logger *slog.Logger
	// OnForeign is called after a batch another process proposed, or a
	// snapshot restore, has been applied to Store. It must not block.
	OnForeign func()
	// OnPrimary is called, from one goroutine in order, with true when
	// this member has become primary (every earlier entry is applied) and
	// with false when it stops being primary. Writes are accepted only
	// after OnPrimary(true) returns.
	OnPrimary func(bool)
	// Transport, when set (tests), replaces the TCP transport; RaftAddr is
	// then its address.
	Transport raft.Transport
	// LogStore, when set (tests), replaces the raft store under the data
	// directory.
	LogStore interface {
		raft.LogStore
		raft.StableStore
	}
	// StateOf, when set (tests), replaces asking a member for its state
	// on its raft address.
	StateOf func(raftAddr string) (MemberState, error)
	// Snapshots, when set (tests), replaces the file snapshot store.
	Snapshots raft.SnapshotStore
	// Timing shortens raft's timeouts (tests); zero keeps the defaults.
	HeartbeatTimeout time.Duration
	// ApplyTimeout bounds how long a write waits for raft to accept it.
	ApplyTimeout time.Duration
}

// MemberInfo is what a member advertises about itself.
type MemberInfo struct {
	RaftAddr  string `json:"raftAddr"`
	MongoAddr string `json:"mongoAddr,omitempty"`
	RespAddr  string `json:"respAddr,omitempty"`
}

// Node is one member of a replica set: the raft instance, its stores and
// the store's Replicator.
type Node struct {
	cfg    Config
	raft   *raft.Raft
	fsm    *FSM
	origin [originLen]byte
	raftDB *storage.Store // the raft log's own store; nil when given one
	// logs is the raft log, read by AppliedIndex; nil once closed, under
	// logsMu.
	logsMu sync.RWMutex
	logs   raft.LogStore
	// passedTo is the last index AppliedIndex returned: every entry past
	// the state machine's index up to it is one the store never sees, so
	// the next call reads the log only beyond it.
	passedTo atomic.Uint64
	trans    raft.Transport
	stream   *infoStream // nil with a test transport
	writable atomic.Bool
	// started is set once raft is assigned, for the info answers that
	// may come before.
	started atomic.Bool
	// term and since describe the current primary term, for hello's
	// electionId and ROLE.
	primaryTerm atomic.Uint64
	stop        chan struct{}
	done        sync.WaitGroup
	peers       *peerInfos
	frz         freeze
	changes     viewChanges
	proposals   proposer // group commit (group.go)
}

// logCacheEntries is how many of the newest raft entries a member keeps in
// memory besides its log store, so the leader sends a follower what was
// just appended without reading it back from Pebble.
const logCacheEntries = 16

// ErrNotPrimary is storage.ErrNotPrimary, the error of a write on a
// member that is not the primary.
var ErrNotPrimary = storage.ErrNotPrimary

// Open starts this member: it opens its raft store, bootstraps the set on
// the first start, and sets itself as cfg.Store's Replicator.
func Open(cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ApplyTimeout == 0 {
		cfg.ApplyTimeout = 10 * time.Second
	}
	if cfg.Info.RaftAddr == "" {
		cfg.Info.RaftAddr = cfg.RaftAddr
	}
	n := &Node{cfg: cfg, stop: make(chan struct{})}
	if n.cfg.StateOf == nil {
		n.cfg.StateOf = func(addr string) (MemberState, error) { return FetchState(addr, peerRefresh) }
	}
	if _, err := rand.Read(n.origin[:]); err != nil {
		return nil, fmt.Errorf("replica: origin id: %w", err)
	}
	n.proposals = proposer{
		origin: n.origin,
		stop:   n.stop,
		apply:  func(data []byte) raft.ApplyFuture { return n.raft.Apply(data, n.cfg.ApplyTimeout) },
		term: func() (uint64, bool) {
			return n.primaryTerm.Load(), n.writable.Load()
		},
	}
	n.fsm = NewFSM(cfg.Store, n.origin, cfg.OnForeign)
	n.fsm.log = cfg.Logger
	hlog := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: slogWriter{cfg.Logger}})

	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.RaftAddr)
	rc.Logger = hlog
	rc.NoSnapshotRestoreOnStart = true
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = 256
	if cfg.HeartbeatTimeout > 0 {
		rc.HeartbeatTimeout = cfg.HeartbeatTimeout
		rc.ElectionTimeout = cfg.HeartbeatTimeout
		rc.LeaderLeaseTimeout = cfg.HeartbeatTimeout / 2
		rc.CommitTimeout = cfg.HeartbeatTimeout / 20
	}
	// Otherwise raft's defaults: a follower that hears nothing from the
	// leader for a second (randomized up to two) starts an election, so a
	// failover takes two to three seconds, and a busy machine's scheduling
	// delays do not depose a healthy leader.

	var logs interface {
		raft.LogStore
		raft.StableStore
	}
	if cfg.LogStore != nil {
		logs = cfg.LogStore
	} else {
		dir := filepath.Join(cfg.Store.Dir(), "raft")
		st, err := storage.Open(storage.Options{Dir: dir, Durability: cfg.Durability, Logger: cfg.Logger})
		if err != nil {
			return nil, fmt.Errorf("replica: open the raft log: %w", err)
		}
		n.raftDB = st
		logs = NewLogStore(st)
	}
	snaps := cfg.Snapshots
	if snaps == nil {
		fs, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(cfg.Store.Dir(), "raft-snapshots"), 2, hlog)
		if err != nil {
			n.closeStores()
			return nil, fmt.Errorf("replica: open the snapshot store: %w", err)
		}
		snaps = fs
	}
	n.trans = cfg.Transport
	if n.trans == nil {
		bind := cfg.BindAddr
		if bind == "" {
			bind = cfg.RaftAddr
		}
		stream, err := listenInfo(bind, cfg.RaftAddr, n.selfState, n.syncedState)
		if err != nil {
			n.closeStores()
			return nil, err
		}
		n.stream = stream
		n.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream: stream, MaxPool: 8, Timeout: 10 * time.Second, Logger: hlog,
		})
	}
	existing, err := raft.HasExistingState(logs, logs, snaps)
	if err != nil {
		n.closeAll()
		return nil, fmt.Errorf("replica: read raft state: %w", err)
	}
	if !existing {
		var conf raft.Configuration
		for _, p := range cfg.Peers {
			conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(p), Address: raft.ServerAddress(p)})
		}
		if err := raft.BootstrapCluster(rc, logs, logs, snaps, n.trans, conf); err != nil {
			n.closeAll()
			return nil, fmt.Errorf("replica: bootstrap the set: %w", err)
		}
		cfg.Logger.Info("replica set bootstrapped", "set", cfg.SetName, "peers", cfg.Peers)
	}
	cached, err := raft.NewLogCache(logCacheEntries, logs)
	if err != nil {
		n.closeAll()
		return nil, fmt.Errorf("replica: cache the raft log: %w", err)
	}
	n.logsMu.Lock()
	n.logs = cached
	n.logsMu.Unlock()
	r, err := raft.NewRaft(rc, n.fsm, cached, logs, snaps, n.trans)
	if err != nil {
		n.closeAll()
		return nil, fmt.Errorf("replica: start raft: %w", err)
	}
	n.raft = r
	n.started.Store(true)
	n.peers = newPeerInfos()
	cfg.Store.SetReplicator(n)
	n.done.Add(1)
	go n.watchLeadership()
	n.done.Add(1)
	go n.refreshPeers()
	n.done.Add(1)
	go n.observeView()
	return n, nil
}

// watchLeadership follows raft's leadership changes: on gaining it, it
// waits for every earlier entry to be applied, then calls OnPrimary(true)
// and opens writes; on losing it, it closes writes first.
func (n *Node) watchLeadership() {
	defer n.done.Done()
	ch := n.raft.LeaderCh()
	for {
		select {
		case <-n.stop:
			return
		case leader := <-ch:
			if !leader {
				if n.writable.Swap(false) && n.cfg.OnPrimary != nil {
					n.cfg.OnPrimary(false)
				}
				n.noteView()
				continue
			}
			if n.Frozen() && n.refuseWhileFrozen() {
				continue
			}
			if err := n.barrier(); err != nil {
				n.cfg.Logger.Warn("replica: new primary could not apply the earlier entries; handing the role over", "err", err)
				n.raft.LeadershipTransfer()
				continue
			}
			if n.raft.State() != raft.Leader {
				continue
			}
			n.primaryTerm.Store(n.currentTerm())
			if n.cfg.OnPrimary != nil {
				n.cfg.OnPrimary(true)
			}
			n.writable.Store(true)
			n.noteView()
			n.cfg.Logger.Info("replica set member is primary", "set", n.cfg.SetName, "me", n.cfg.RaftAddr, "term", n.primaryTerm.Load())
		}
	}
}

// barrier waits, retrying a few times, until every entry before this
// member's term is applied to its store.
func (n *Node) barrier() error {
	var err error
	for try := 0; try < 3 && n.raft.State() == raft.Leader; try++ {
		if err = awaitFuture(n.raft.Barrier(n.cfg.ApplyTimeout), n.stop); err == nil {
			return nil
		}
	}
	if err == nil {
		err = raft.ErrNotLeader
	}
	return err
}

func (n *Node) currentTerm() uint64 {
	var t uint64
	fmt.Sscan(n.raft.Stats()["term"], &t)
	return t
}

// Writable returns nil on the primary, an error wrapping ErrNotPrimary
// elsewhere.
func (n *Node) Writable() error {
	if n.writable.Load() {
		return nil
	}
	return ErrNotPrimary
}

// Replicate proposes a batch and returns once it is committed and applied
// to this member's store.
func (n *Node) Replicate(repr []byte) error { return n.Propose(repr)() }

// Propose proposes a batch without waiting: wait returns once it is
// committed and applied to this member's store. Batches proposed while
// earlier entries are in flight travel together as one entry (group.go).
func (n *Node) Propose(repr []byte) (wait func() error) { return n.proposals.propose(repr) }

// awaitFuture returns f's error, or raft.ErrRaftShutdown once stop is
// closed: raft leaves the entries still queued or unapplied when it shuts
// down without an answer, so a wait on one alone could last forever.
func awaitFuture(f raft.Future, stop <-chan struct{}) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-stop:
		return raft.ErrRaftShutdown
	}
}

// applyResult waits for a proposal until it is applied or stop is closed,
// and returns its error: raft's, as ErrNotPrimary when this member lost
// the role or stopped, or the state machine's.
func applyResult(f raft.ApplyFuture, stop <-chan struct{}) error {
	if err := awaitFuture(f, stop); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) ||
			errors.Is(err, raft.ErrLeadershipTransferInProgress) || errors.Is(err, raft.ErrRaftShutdown) {
			return fmt.Errorf("%w: %w", ErrNotPrimary, err)
		}
		return fmt.Errorf("replica: replicate a batch: %w", err)
	}
	if err, _ := f.Response().(error); err != nil {
		return err
	}
	return nil
}

// IsPrimary reports whether this member accepts writes.
func (n *Node) IsPrimary() bool { return n.writable.Load() }

// Close stops the node and raft. The store keeps the node as its
// Replicator: later commits fail with ErrNotPrimary.
func (n *Node) Close() error {
	select {
	case <-n.stop:
		return nil
	default:
	}
	n.writable.Store(false)
	close(n.stop)
	var errs []error
	if err := n.raft.Shutdown().Error(); err != nil {
		errs = append(errs, fmt.Errorf("replica: shut down raft: %w", err))
	}
	n.done.Wait()
	n.closeAll()
	return errors.Join(errs...)
}

func (n *Node) closeAll() {
	if c, ok := n.trans.(io.Closer); ok {
		c.Close()
	}
	n.closeStores()
}

func (n *Node) closeStores() {
	n.logsMu.Lock()
	n.logs = nil
	n.logsMu.Unlock()
	if n.raftDB != nil {
		n.raftDB.Close()
		n.raftDB = nil
	}
}

// slogWriter sends raft's log lines to slog.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(string(trimNewline(p)), "component", "raft")
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
