package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mayfly/mayfly/internal/admin"
	"github.com/mayfly/mayfly/internal/replica"
	"github.com/mayfly/mayfly/internal/wire/mongo"
	"github.com/mayfly/mayfly/internal/wire/resp"
)

// replicaSide is the server's membership of a replica set: the raft node,
// started once the listeners are bound (so that the member advertises its
// bound addresses), and what follows from it: the sweeper and the Redis
// garbage collector run only while this member is primary, and the models'
// in-memory state is rebuilt after other members' writes are applied.
type replicaSide struct {
	s    *Server
	node atomic.Pointer[replica.Node]
	// primary cancels the work that runs only on the primary; nil when
	// this member is not primary. primaryDone waits for it. Both are used
	// only by the node's leadership goroutine.
	primary     context.CancelFunc
	primaryDone sync.WaitGroup
	// electedAt is when this member last became primary (Unix ns).
	electedAt atomic.Int64
	// refresh asks the reload loop to rebuild the models' state.
	refresh chan struct{}
	// opened is closed once node is set.
	opened chan struct{}
}

// reloadEvery bounds how often a follower rebuilds the models' in-memory
// state while other members' writes keep arriving.
const reloadEvery = 50 * time.Millisecond

func newReplicaSide(s *Server) *replicaSide {
	return &replicaSide{s: s, refresh: make(chan struct{}, 1), opened: make(chan struct{})}
}

// start opens the raft node; background is the server's background
// context, which the primary-only work and the reload loop run under.
func (r *replicaSide) start(background context.Context) error {
	cfg := r.s.cfg
	info := replica.MemberInfo{RaftAddr: cfg.RaftAddr, MongoAddr: cfg.AdvertiseMongoAddr, RespAddr: cfg.AdvertiseRespAddr}
	if info.MongoAddr == "" {
		info.MongoAddr = r.s.Addr("mongo")
	}
	if info.RespAddr == "" {
		info.RespAddr = r.s.Addr("resp")
	}
	peers := cfg.Peers
	if len(peers) == 0 {
		peers = []string{cfg.RaftAddr}
	}
	r.s.background.Add(1)
	go func() {
		defer r.s.background.Done()
		r.reloadLoop(background)
	}()
	node, err := replica.Open(replica.Config{
		SetName:    cfg.ReplicaSet,
		RaftAddr:   cfg.RaftAddr,
		BindAddr:   cfg.RaftBindAddr,
		Peers:      peers,
		Info:       info,
		Store:      r.s.store,
		Durability: cfg.Durability,
		Logger:     r.s.log,
		OnForeign:  r.foreign,
		OnPrimary:  func(on bool) { r.onPrimary(background, on) },
	})
	if err != nil {
		return err
	}
	r.node.Store(node)
	close(r.opened)
	return nil
}

// foreign notes that another member's writes were applied: the Redis
// model rebuilds its state at its next command, the document model's
// catalog soon.
func (r *replicaSide) foreign() {
	if r.s.redis != nil {
		r.s.redis.kv.MarkStale()
	}
	select {
	case r.refresh <- struct{}{}:
	default:
	}
}

func (r *replicaSide) reloadLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.refresh:
		}
		if err := r.reloadCatalog(); err != nil && ctx.Err() == nil {
			r.s.log.Error("replica: rebuild the models' state after replicated writes", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(reloadEvery):
		}
	}
}

// reloadCatalog rebuilds the document model's catalog from storage.
func (r *replicaSide) reloadCatalog() error {
	if r.s.mongo != nil {
		return errors.Join(r.reloadDocuments(), r.s.mongo.db.RefreshChangeLog(false))
	}
	return nil
}

// reloadDocuments rebuilds the document model's catalog from storage and
// kills the cursors of the collections another member dropped or renamed,
// as the primary's own drops and renames kill them.
func (r *replicaSide) reloadDocuments() error {
	gone, err := r.s.mongo.db.Reload()
	r.s.mongo.wire.CollectionsGone(gone)
	return err
}

// reload rebuilds the models' in-memory state from storage.
func (r *replicaSide) reload(ctx context.Context) error {
	var errs []error
	if r.s.redis != nil {
		errs = append(errs, r.s.redis.kv.Reload(ctx))
	}
	if r.s.mongo != nil {
		errs = append(errs, r.reloadDocuments(), r.s.mongo.db.RefreshChangeLog(true))
	}
	return errors.Join(errs...)
}

// onPrimary starts the primary-only work when this member becomes primary
// and stops it when it steps down.
func (r *replicaSide) onPrimary(background context.Context, on bool) {
	if !on {
		if r.primary != nil {
			r.primary()
			r.primaryDone.Wait()
			r.primary = nil
		}
		// A write in flight when the role was lost leaves kv failed; the
		// state rebuilt from storage is the truth again.
		if err := r.reload(background); err != nil {
			r.s.log.Error("replica: rebuild the models' state after stepping down", "err", err)
		}
		return
	}
	if err := r.reload(background); err != nil {
		r.s.log.Error("replica: rebuild the models' state on becoming primary", "err", err)
	}
	if r.s.mongo != nil {
		if err := r.s.mongo.wire.Promoted(); err != nil {
			r.s.log.Error("replica: resume sessions and cluster time on becoming primary", "err", err)
		}
	}
	r.electedAt.Store(time.Now().UnixNano())
	ctx, cancel := context.WithCancel(background)
	r.primary = cancel
	r.s.startPrimaryWork(ctx, &r.primaryDone, func(err error) {
		if ctx.Err() == nil {
			r.s.log.Error("replica: primary background work stopped", "err", err)
		}
	})
}

// close stops the node, then the primary-only work if it runs: once the
// node is closed its leadership goroutine has returned, so nothing else
// touches r.primary.
func (r *replicaSide) close() error {
	var err error
	if n := r.node.Load(); n != nil {
		err = n.Close()
	}
	if r.primary != nil {
		r.primary()
		r.primaryDone.Wait()
		r.primary = nil
	}
	return err
}

// mongoView is the replica set as the MongoDB side sees it.
type mongoView struct{ r *replicaSide }

func (v mongoView) Writable() bool {
	n := v.r.node.Load()
	return n != nil && n.IsPrimary()
}

func (v mongoView) View() mongo.ReplSetView {
	out := mongo.ReplSetView{SetName: v.r.s.cfg.ReplicaSet, Me: v.r.s.cfg.AdvertiseMongoAddr}
	if out.Me == "" {
		out.Me = v.r.s.Addr("mongo")
	}
	n := v.r.node.Load()
	if n == nil {
		return out
	}
	st := n.Status()
	out.IsPrimary = st.IsPrimary
	out.Term = int64(st.Me.Term)
	out.Version = int64(st.ConfigIndex)
	out.Applied = int64(st.Me.AppliedIndex)
	if st.IsPrimary {
		out.ElectedAt = time.Unix(0, v.r.electedAt.Load())
	}
	for _, m := range st.Members {
		if m.Primary && m.Healthy {
			out.Primary = m.MongoAddr
		}
		out.Members = append(out.Members, mongo.ReplSetMember{
			Host: m.MongoAddr, RaftAddr: m.RaftAddr, Self: m.Self, Primary: m.Primary, Healthy: m.Healthy,
			Applied: int64(m.AppliedIndex), LastHeartbeat: m.LastSeen,
		})
	}
	return out
}

// Changes counts the changes of the set as this member sees it: 0 until
// the node is open (the channel is then closed when it opens), then one
// more than the node's own count.
func (v mongoView) Changes() (int64, <-chan struct{}) {
	n := v.r.node.Load()
	if n == nil {
		return 0, v.r.opened
	}
	count, changed := n.Changes()
	return int64(count) + 1, changed
}

func (v mongoView) StepDown() error {
	n := v.r.node.Load()
	if n == nil {
		return replica.ErrNotPrimary
	}
	return n.StepDown()
}

func (v mongoView) AddMember(addr string) error {
	n := v.r.node.Load()
	if n == nil {
		return replica.ErrNotPrimary
	}
	return n.AddMember(addr)
}

func (v mongoView) RemoveMember(addr string) error {
	n := v.r.node.Load()
	if n == nil {
		return replica.ErrNotPrimary
	}
	return n.RemoveMember(addr)
}

func (v mongoView) Voters() int {
	n := v.r.node.Load()
	if n == nil {
		return 1
	}
	return n.Voters()
}

func (v mongoView) WaitApplied(ctx context.Context, want int) int {
	n := v.r.node.Load()
	if n == nil {
		return 0
	}
	return n.WaitReplicas(ctx, n.AppliedIndex(), want)
}

func (v mongoView) VerifyLeader() error {
	n := v.r.node.Load()
	if n == nil {
		return replica.ErrNotPrimary
	}
	return n.VerifyLeader()
}

// respView is the replica set as the RESP side sees it.
type respView struct{ r *replicaSide }

func (v respView) Writable() bool { return mongoView(v).Writable() }

func (v respView) Role() resp.ReplicaRole {
	n := v.r.node.Load()
	if n == nil {
		return resp.ReplicaRole{}
	}
	st := n.Status()
	out := resp.ReplicaRole{Master: st.IsPrimary, Offset: int64(st.Me.AppliedIndex)}
	for _, m := range st.Members {
		host, port := splitHostPort(m.RespAddr)
		if m.Primary && !m.Self {
			out.MasterHost, out.MasterPort, out.LinkUp = host, port, m.Healthy
		}
		if st.IsPrimary && !m.Self {
			out.Replicas = append(out.Replicas, resp.ReplicaPeer{Host: host, Port: port, Offset: int64(m.AppliedIndex), Online: m.Healthy})
		}
	}
	return out
}

func (v respView) WaitReplicas(ctx context.Context, want int) int {
	n := v.r.node.Load()
	if n == nil {
		return 0
	}
	return n.WaitReplicas(ctx, n.AppliedIndex(), want)
}

func splitHostPort(addr string) (string, int) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	port, _ := strconv.Atoi(p)
	return host, port
}

// mongoReplicaSet is the MongoDB side's replica set, nil on a standalone.
func (s *Server) mongoReplicaSet() mongo.ReplicaSet {
	if s.repl == nil {
		return nil
	}
	return mongoView{s.repl}
}

// respReplica is the RESP side's replica set, nil on a standalone.
func (s *Server) respReplica() resp.Replica {
	if s.repl == nil {
		return nil
	}
	return respView{s.repl}
}

// validateReplica checks the replica set settings.
func (c *Config) validateReplica() error {
	if c.ReplicaSet == "" {
		if c.RaftAddr != "" || c.RaftBindAddr != "" || len(c.Peers) > 0 {
			return fmt.Errorf("--raft-addr, --raft-bind-addr and --peers need --replica-set")
		}
		return nil
	}
	if c.RaftAddr == "" {
		return fmt.Errorf("--replica-set needs --raft-addr, this member's raft address (host:port)")
	}
	if _, _, err := net.SplitHostPort(c.RaftAddr); err != nil {
		return fmt.Errorf("--raft-addr %q: %w", c.RaftAddr, err)
	}
	if c.RaftBindAddr != "" {
		if _, _, err := net.SplitHostPort(c.RaftBindAddr); err != nil {
			return fmt.Errorf("--raft-bind-addr %q: %w", c.RaftBindAddr, err)
		}
	}
	if len(c.Peers) > 0 {
		found := false
		for _, p := range c.Peers {
			if _, _, err := net.SplitHostPort(p); err != nil {
				return fmt.Errorf("--peers %q: %w", p, err)
			}
			found = found || p == c.RaftAddr
		}
		if !found {
			return fmt.Errorf("--peers must include this member's --raft-addr %s", c.RaftAddr)
		}
	}
	return nil
}

// adminReplicas is the replica set as the admin API's /v1/replicas
// manages it.
type adminReplicas struct{ r *replicaSide }

func (a adminReplicas) Replicas() []admin.Replica {
	n := a.r.node.Load()
	if n == nil {
		return nil
	}
	var out []admin.Replica
	for _, m := range n.Status().Members {
		state := "SECONDARY"
		switch {
		case !m.Healthy:
			state = "UNREACHABLE"
		case m.Primary:
			state = "PRIMARY"
		}
		out = append(out, admin.Replica{ID: m.RaftAddr, RaftAddr: m.RaftAddr, MongoAddr: m.MongoAddr, RespAddr: m.RespAddr,
			State: state, Self: m.Self, AppliedIndex: m.AppliedIndex})
	}
	return out
}

// notPrimary turns the node's refusal into the admin API's, naming the
// primary.
func (a adminReplicas) notPrimary(err error) error {
	if !errors.Is(err, replica.ErrNotPrimary) {
		return err
	}
	np := &admin.ErrNotPrimary{}
	if n := a.r.node.Load(); n != nil {
		np.Primary = n.Status().Leader
	}
	return np
}

func (a adminReplicas) AddReplica(raftAddr string) error {
	n := a.r.node.Load()
	if n == nil {
		return a.notPrimary(replica.ErrNotPrimary)
	}
	return a.notPrimary(n.AddMember(raftAddr))
}

func (a adminReplicas) RemoveReplica(id string) error {
	n := a.r.node.Load()
	if n == nil {
		return a.notPrimary(replica.ErrNotPrimary)
	}
	return a.notPrimary(n.RemoveMember(id))
}

// mountReplicas adds /v1/replicas to the admin server of a replica set
// member.
func (s *Server) mountReplicas(srv *admin.Server) error {
	if s.repl == nil {
		return nil
	}
	return admin.MountReplicas(srv, admin.ReplicaOptions{Source: adminReplicas{s.repl}, Tokens: s.tokens, Logger: s.log})
}
