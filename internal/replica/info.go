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
}

// infoStream is raft's stream layer on TCP that also answers info
// requests on the same address.
type infoStream struct {
	ln     net.Listener
	state  func() MemberState
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

var _ raft.StreamLayer = (*infoStream)(nil)

func listenInfo(addr string, state func() MemberState) (*infoStream, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("replica: listen for raft on %s: %w", addr, err)
	}
	s := &infoStream{ln: ln, state: state, conns: make(chan net.Conn), closed: make(chan struct{})}
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
	if b[0] == infoRequest {
		defer c.Close()
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		json.NewEncoder(c).Encode(s.state())
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

func (s *infoStream) Addr() net.Addr { return s.ln.Addr() }

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
	var st MemberState
	c, err := net.DialTimeout("tcp", raftAddr, timeout)
	if err != nil {
		return st, fmt.Errorf("replica: ask %s: %w", raftAddr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte{infoRequest}); err != nil {
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
		st.AppliedIndex = n.raft.AppliedIndex()
	}
	return st
}
