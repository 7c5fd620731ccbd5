package replica

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// infoRequest is the first byte of a connection to a raft address that
// asks for the member's state instead of speaking raft (whose requests
// start with a small RPC type number).
const infoRequest = 'I'

// MemberState is what a member answers to an info request: its advertised
// addresses and how far it has applied the log.
type MemberState struct {
	MemberInfo
	State        string `json:"state"` // raft's: Leader, Follower, Candidate
	Term         uint64 `json:"term"`
	AppliedIndex uint64 `json:"appliedIndex"`
	// SyncedIndex, in the answer to a sync request, is the last log index
	// the member has fsynced.
	SyncedIndex uint64 `json:"syncedIndex,omitempty"`
	// Frozen reports that the member refuses the primary role for now
	// (freeze.go).
	Frozen bool `json:"frozen,omitempty"`
}

// infoStream is raft's stream layer on TCP that also answers info
// requests on the same address.
type infoStream struct {
	ln     net.Listener
	synced func() (MemberState, error) // the answer to a sync request
	adv    net.Addr                    // the advertised address, which Addr reports
	state  func() MemberState
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

var _ raft.StreamLayer = (*infoStream)(nil)

// listenInfo listens on bind; advertise is the address the other members
// reach it at, which raft tells them.
func listenInfo(bind, advertise string, state func() MemberState, synced func() (MemberState, error)) (*infoStream, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, fmt.Errorf("replica: listen for raft on %s: %w", bind, err)
	}
	adv, err := net.ResolveTCPAddr("tcp", advertise)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("replica: raft address %s: %w", advertise, err)
	}
	s := &infoStream{ln: ln, adv: adv, state: state, synced: synced, conns: make(chan net.Conn), closed: make(chan struct{})}
	go s.acceptLoop()
	return s, nil
}

func (s *infoStream) acceptLoop() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.Close()
			return
		}
		go s.sort(c)
	}
}

// sort reads a connection's first byte: an info request is answered here,
// anything else goes to raft with that byte put back.
func (s *infoStream) sort(c net.Conn) {
	var b [1]byte
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, b[:]); err != nil {
		c.Close()
		return
	}
	c.SetReadDeadline(time.Time{})
	if b[0] == infoRequest || b[0] == syncRequest {
		defer c.Close()
		st, err := s.state(), error(nil)
		if b[0] == syncRequest {
			st, err = s.synced()
		}
		if err != nil {
			return // the asker sees the connection close without an answer
		}
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		json.NewEncoder(c).Encode(st)
		return
	}
	select {
	case s.conns <- &peekedConn{Conn: c, first: b[0], has: true}:
	case <-s.closed:
		c.Close()
	}
}

func (s *infoStream) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.closed:
		return nil, net.ErrClosed
	}
}

func (s *infoStream) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.ln.Close()
	})
	return nil
}

// Addr is the advertised address: raft gives it to the other members as
// this one's.
func (s *infoStream) Addr() net.Addr { return s.adv }

func (s *infoStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", string(addr), timeout)
}

// peekedConn is a connection whose first byte was already read.
type peekedConn struct {
	net.Conn
	first byte
	has   bool
}

func (c *peekedConn) Read(p []byte) (int, error) {
	if c.has && len(p) > 0 {
		p[0] = c.first
		c.has = false
		return 1, nil
	}
	return c.Conn.Read(p)
}

// FetchState asks the member at raftAddr for its state.
func FetchState(raftAddr string, timeout time.Duration) (MemberState, error) {
	return fetch(raftAddr, infoRequest, timeout)
}

// fetch sends the one-byte request req to the member at raftAddr and
// reads the state it answers.
func fetch(raftAddr string, req byte, timeout time.Duration) (MemberState, error) {
	var st MemberState
	c, err := net.DialTimeout("tcp", raftAddr, timeout)
	if err != nil {
		return st, fmt.Errorf("replica: ask %s: %w", raftAddr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte{req}); err != nil {
		return st, fmt.Errorf("replica: ask %s: %w", raftAddr, err)
	}
	if err := json.NewDecoder(c).Decode(&st); err != nil {
		return st, fmt.Errorf("replica: read the state of %s: %w", raftAddr, err)
	}
	return st, nil
}

// peerInfos keeps the last state each member answered.
type peerInfos struct {
	mu   sync.Mutex
	last map[string]peerSeen
}

type peerSeen struct {
	state MemberState
	at    time.Time // when it last answered; zero if never
	err   error     // the last request's error
}

func newPeerInfos() *peerInfos { return &peerInfos{last: map[string]peerSeen{}} }

func (p *peerInfos) get(addr string) peerSeen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last[addr]
}

func (p *peerInfos) record(addr string, st MemberState, err error, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := p.last[addr]
	seen.err = err
	if err == nil {
		seen.state, seen.at = st, now
	}
	p.last[addr] = seen
}

// peerRefresh is how often every member's state is asked for.
const peerRefresh = 500 * time.Millisecond

func (n *Node) refreshPeers() {
	defer n.done.Done()
	t := time.NewTicker(peerRefresh)
	defer t.Stop()
	for {
		n.pollPeers()
		n.noteView()
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
	}
}

// pollPeers asks every other member of the configuration for its state,
// in parallel, and returns when all have answered or failed.
func (n *Node) pollPeers() {
	var wg sync.WaitGroup
	for _, srv := range n.servers() {
		addr := string(srv.Address)
		if addr == n.cfg.RaftAddr {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := n.cfg.StateOf(addr)
			n.peers.record(addr, st, err, time.Now())
		}()
	}
	wg.Wait()
}

// servers returns the set's current configuration.
func (n *Node) servers() []raft.Server {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	return f.Configuration().Servers
}

func (n *Node) selfState() MemberState {
	st := MemberState{MemberInfo: n.cfg.Info}
	if n.started.Load() {
		st.State = n.raft.State().String()
		st.Term = n.currentTerm()
		st.AppliedIndex = n.AppliedIndex()
		st.Frozen = n.Frozen()
	}
	return st
}
