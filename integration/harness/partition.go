package harness

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// ProxiedSet is a replica set whose members reach each other's raft
// addresses only through TCP proxies in the test process, one in front of
// each member (the member listens on --raft-bind-addr, its --raft-addr is
// the proxy's). A proxy tells which member dialled a connection by the
// process that owns the connection's other end, so the test can cut the
// links between chosen members in both directions and heal them.
type ProxiedSet struct {
	*Set
	proxies []*raftProxy
}

// StartProxiedSet starts a replica set of n members behind raft proxies;
// the proxies and members stop when the test ends.
func StartProxiedSet(t testing.TB, name string, n int, args ...string) *ProxiedSet {
	t.Helper()
	ps := &ProxiedSet{Set: &Set{Name: name, t: t, args: args}}
	var peers []string
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		bind := freeAddr(t)
		p := &raftProxy{ln: ln, target: bind, cut: map[int]bool{}, conns: map[net.Conn]int{}}
		t.Cleanup(p.close)
		go p.serve()
		ps.proxies = append(ps.proxies, p)
		m := &Member{Dir: t.TempDir(), RaftAddr: ln.Addr().String(), MongoAddr: freeAddr(t), RespAddr: freeAddr(t), HTTPAddr: freeAddr(t)}
		m.args = []string{"--raft-bind-addr", bind}
		ps.Members = append(ps.Members, m)
		peers = append(peers, m.RaftAddr)
	}
	for _, m := range ps.Members {
		m.args = append(append(m.args, "--replica-set", name, "--raft-addr", m.RaftAddr, "--peers", strings.Join(peers, ",")), args...)
	}
	for i := range ps.Members {
		ps.Restart(i)
	}
	return ps
}

// Isolate cuts member i off from every other member, both ways: the
// connections between them are closed and new ones refused until Heal.
func (ps *ProxiedSet) Isolate(i int) {
	pids := map[int]int{}
	for k, m := range ps.Members {
		if m.Server != nil {
			pids[m.Pid()] = k
		}
	}
	for j, p := range ps.proxies {
		if j == i {
			others := map[int]bool{}
			for k := range ps.proxies {
				if k != i {
					others[k] = true
				}
			}
			p.setCut(others, pids)
		} else {
			p.setCut(map[int]bool{i: true}, pids)
		}
	}
}

// Heal lets every member reach every other again.
func (ps *ProxiedSet) Heal() {
	for _, p := range ps.proxies {
		p.setCut(map[int]bool{}, nil)
	}
}

// raftProxy forwards connections to one member's raft address, refusing
// those dialled by the members in cut.
type raftProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    map[int]bool     // member positions whose connections are refused
	pids   map[int]int      // process id -> member position, when cut was set
	conns  map[net.Conn]int // live client connections and their dialler (-1 unknown)
	closed bool
}

func (p *raftProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *raftProxy) forward(c net.Conn) {
	p.mu.Lock()
	pids := p.pids
	p.mu.Unlock()
	from := dialler(c, pids)
	p.mu.Lock()
	if p.closed || (from >= 0 && p.cut[from]) {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns[c] = from
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
		c.Close()
	}()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); up.Close(); done <- struct{}{} }()
	go func() { io.Copy(c, up); c.Close(); done <- struct{}{} }()
	<-done
}

// setCut refuses the given members from now on and closes their open
// connections.
func (p *raftProxy) setCut(cut map[int]bool, pids map[int]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut, p.pids = cut, pids
	for c, from := range p.conns {
		if from < 0 {
			from = dialler(c, pids)
			p.conns[c] = from
		}
		if from >= 0 && cut[from] {
			c.Close()
		}
	}
}

func (p *raftProxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
}

// dialler returns the position of the member, among pids (process id ->
// position), whose process owns the other end of c, found through /proc
// (the socket's inode, then the process holding it), or -1.
func dialler(c net.Conn, pids map[int]int) int {
	if len(pids) == 0 {
		return -1
	}
	remote, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return -1
	}
	local := c.LocalAddr().(*net.TCPAddr)
	inode := socketInode(remote.Port, local.Port)
	if inode == "" {
		return -1
	}
	want := "socket:[" + inode + "]"
	for pid, i := range pids {
		fdDir := fmt.Sprintf("/proc/%d/fd", pid)
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(fdDir + "/" + fd.Name()); err == nil && l == want {
				return i
			}
		}
	}
	return -1
}

// socketInode finds in /proc/net/tcp the inode of the IPv4 socket whose
// local port is localPort and remote port remotePort.
func socketInode(localPort, remotePort int) string {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[0] == "sl" {
			continue
		}
		if hexPort(fs[1]) == localPort && hexPort(fs[2]) == remotePort {
			return fs[9]
		}
	}
	return ""
}

// hexPort reads the port of a /proc/net/tcp address (IP:PORT in hex).
func hexPort(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return -1
	}
	n, err := strconv.ParseInt(addr[i+1:], 16, 32)
	if err != nil {
		return -1
	}
	return int(n)
}
