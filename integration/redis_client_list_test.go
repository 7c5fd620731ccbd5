package integration_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisClientListQueryBuffer: CLIENT INFO's qbuf is, as in Redis, the
// bytes of the read buffer while the command runs: the command's own
// request and the requests pipelined with it; qbuf-free the room left.
func TestRedisClientListQueryBuffer(t *testing.T) {
	s := harness.Start(t)
	nc, err := net.Dial("tcp", s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	info := func(req string) (qbuf, free int) {
		t.Helper()
		if _, err := fmt.Fprint(nc, req); err != nil {
			t.Fatal(err)
		}
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if line[0] != '$' {
				continue // the replies pipelined before CLIENT INFO
			}
			n, _ := strconv.Atoi(line[1 : len(line)-2])
			body := make([]byte, n+2)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(` qbuf=(\d+) qbuf-free=(\d+) `).FindSubmatch(body)
			if m == nil {
				t.Fatalf("no qbuf in %q", body)
			}
			qbuf, _ = strconv.Atoi(string(m[1]))
			free, _ = strconv.Atoi(string(m[2]))
			return qbuf, free
		}
	}
	const clientInfo = "*2\r\n$6\r\nclient\r\n$4\r\ninfo\r\n" // 26 bytes
	if q, free := info(clientInfo); q != 26 || free <= 0 {
		t.Fatalf("CLIENT INFO alone: qbuf=%d qbuf-free=%d, want 26 and some room", q, free)
	}
	const ping = "*1\r\n$4\r\nping\r\n" // 14 bytes
	if q, _ := info(ping + clientInfo + ping); q != 14+26+14 {
		t.Fatalf("CLIENT INFO pipelined between two PINGs: qbuf=%d, want %d", q, 14+26+14)
	}
}
