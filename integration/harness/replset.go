package harness

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Set is a replica set of mayfly processes on 127.0.0.1, each on fixed
// ports so that a member restarts on the same addresses.
type Set struct {
	Name    string
	Members []*Member
	t       testing.TB
	args    []string
}

// Member is one member of a Set; Server is nil while it is stopped.
type Member struct {
	*Server
	Dir                           string
	RaftAddr, MongoAddr, RespAddr string
	HTTPAddr                      string
	args                          []string
}

// freeAddr returns a 127.0.0.1 address whose port was free a moment ago
// and lies below the kernel's ephemeral range, so that between this check
// and the member's bind no connection's local port (nor a listener on
// port 0) can take it; each is handed out once per test process.
func freeAddr(t testing.TB) string {
	t.Helper()
	ports.Lock()
	defer ports.Unlock()
	if ports.next == 0 {
		low := 32768
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
			if f := strings.Fields(string(b)); len(f) == 2 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					low = n
				}
			}
		}
		ports.low, ports.high = max(low-16000, 1024), low
		ports.next = ports.low + rand.IntN(max(ports.high-ports.low, 1))
	}
	for range ports.high - ports.low {
		port := ports.next
		if ports.next++; ports.next >= ports.high {
			ports.next = ports.low
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}
	t.Fatalf("no free port in [%d, %d)", ports.low, ports.high)
	return ""
}

// ports is where freeAddr goes on from: a random start in the range, so
// that test processes running side by side mostly try different ports.
var ports struct {
	sync.Mutex
	low, high, next int
}

// StartSet starts a replica set of n members named name, each a `mayfly
// serve --replica-set name` on its own data directory; extra arguments go
// to every member. The members are stopped when the test ends.
func StartSet(t testing.TB, name string, n int, args ...string) *Set {
	t.Helper()
	s := &Set{Name: name, t: t, args: args}
	var peers []string
	for i := 0; i < n; i++ {
		m := &Member{Dir: t.TempDir(), RaftAddr: freeAddr(t), MongoAddr: freeAddr(t), RespAddr: freeAddr(t), HTTPAddr: freeAddr(t)}
		s.Members = append(s.Members, m)
		peers = append(peers, m.RaftAddr)
	}
	for _, m := range s.Members {
		m.args = append([]string{"--replica-set", name, "--raft-addr", m.RaftAddr, "--peers", strings.Join(peers, ",")}, args...)
	}
	for i := range s.Members {
		s.Restart(i)
	}
	return s
}

// Restart starts member i again on its data directory and addresses (it
// must be stopped, or never started).
func (s *Set) Restart(i int) {
	s.t.Helper()
	m := s.Members[i]
	args := append([]string{"--mongo-addr", m.MongoAddr, "--resp-addr", m.RespAddr, "--http-addr", m.HTTPAddr}, m.args...)
	m.Server = StartDir(s.t, m.Dir, args...)
}

// Kill stops member i at once with SIGKILL.
func (s *Set) Kill(i int) {
	if m := s.Members[i]; m.Server != nil {
		m.Server.Kill()
		m.Server = nil
	}
}

// Wipe removes member i's data directory (it must be stopped), so that
// its next start catches up from the others.
func (s *Set) Wipe(i int) {
	s.t.Helper()
	if err := os.RemoveAll(s.Members[i].Dir); err != nil {
		s.t.Fatal(err)
	}
}

// Pause stops member i with SIGSTOP; Resume continues it.
func (s *Set) Pause(i int) error  { return s.Members[i].Signal(syscall.SIGSTOP) }
func (s *Set) Resume(i int) error { return s.Members[i].Signal(syscall.SIGCONT) }

// MongoURI is a connection string naming every member, with replicaSet.
func (s *Set) MongoURI() string {
	var hosts []string
	for _, m := range s.Members {
		hosts = append(hosts, m.MongoAddr)
	}
	return fmt.Sprintf("mongodb://%s/?replicaSet=%s", strings.Join(hosts, ","), s.Name)
}
