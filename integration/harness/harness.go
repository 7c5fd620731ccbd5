// Package harness starts the real mayfly binary for black-box tests and
// finds the client tools (mongosh, redis-cli) the tests drive it with.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ReadyMessage is the msg of the server's ready log line (server.ReadyMessage;
// repeated here because black-box tests do not import the server).
const ReadyMessage = "mayfly ready"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Root returns the module's root directory.
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the mayfly module")
	}
	return filepath.Dir(mod), nil
}

// Binary builds the mayfly binary once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := Root()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "mayfly-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mayfly")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/mayfly")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Server is a running mayfly process.
type Server struct {
	Dir       string // data directory
	MongoAddr string // host:port, or "" when disabled
	RespAddr  string
	HTTPAddr  string
	// MongoPlainAddr and RespPlainAddr are the plain listeners beside TLS
	// ones (--mongo-plain-addr, --resp-plain-addr), or "".
	MongoPlainAddr string
	RespPlainAddr  string

	t      testing.TB
	cmd    *exec.Cmd
	mu     sync.Mutex
	logs   bytes.Buffer
	logged chan struct{} // closed and replaced under mu at each new log line
	exited chan struct{}
	err    error // exit status, once exited is closed
}

// Start runs `mayfly serve` on a fresh data directory with every listener on
// 127.0.0.1:0, waits for the ready line, and stops the server when the test
// ends. Extra arguments are appended (a later --flag overrides).
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	return StartDir(t, t.TempDir(), args...)
}

// EventLoopEnv names the environment variable that, set to 1, runs every
// server with --resp-event-loop, so that the suites run on the event loop.
const EventLoopEnv = "MAYFLY_TEST_RESP_EVENT_LOOP"

func eventLoopArgs() []string {
	if os.Getenv(EventLoopEnv) == "1" {
		return []string{"--resp-event-loop"}
	}
	return nil
}

// StartDir is Start on a given data directory (for restarts).
func StartDir(t testing.TB, dir string, args ...string) *Server {
	t.Helper()
	full := append([]string{"serve", "--dir", dir,
		"--mongo-addr", "127.0.0.1:0", "--resp-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--log-format", "json"}, append(eventLoopArgs(), args...)...)
	s := &Server{Dir: dir, t: t, exited: make(chan struct{})}
	s.cmd = exec.Command(Binary(t), full...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan map[string]any, 1)
	go s.readLogs(stderr, ready)
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			t.Logf("mayfly log:\n%s", s.Logs())
		}
	})
	select {
	case line := <-ready:
		s.MongoAddr, _ = line["mongo"].(string)
		s.RespAddr, _ = line["resp"].(string)
		s.HTTPAddr, _ = line["http"].(string)
		s.MongoPlainAddr, _ = line["mongo-plain"].(string)
		s.RespPlainAddr, _ = line["resp-plain"].(string)
	case <-s.exited:
		t.Fatalf("mayfly exited before it was ready: %v\n%s", s.err, s.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("mayfly not ready after 60s:\n%s", s.Logs())
	}
	return s
}

func (s *Server) readLogs(r io.Reader, ready chan<- map[string]any) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sent := false
	for sc.Scan() {
		line := sc.Bytes()
		s.mu.Lock()
		s.logs.Write(line)
		s.logs.WriteByte('\n')
		if s.logged != nil {
			close(s.logged)
			s.logged = nil
		}
		s.mu.Unlock()
		if sent {
			continue
		}
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["msg"] == ReadyMessage {
			ready <- m
			sent = true
		}
	}
}

// Logs returns everything the server logged so far.
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// WaitLog waits until the server's log holds substr, and fails the test if
// it has not within timeout; it wakes at each new log line.
func (s *Server) WaitLog(t testing.TB, substr string, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		logs := s.logs.String()
		if strings.Contains(logs, substr) {
			s.mu.Unlock()
			return logs
		}
		if s.logged == nil {
			s.logged = make(chan struct{})
		}
		next := s.logged
		s.mu.Unlock()
		select {
		case <-next:
		case <-s.exited:
			t.Fatalf("mayfly exited before logging %q:\n%s", substr, s.Logs())
		case <-deadline:
			t.Fatalf("mayfly did not log %q within %v:\n%s", substr, timeout, s.Logs())
		}
	}
}

// Stop sends SIGTERM and waits for the process to exit, returning its exit
// error (nil for a clean exit).
func (s *Server) Stop(ctx context.Context) error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("signal: %w", err)
	}
	select {
	case <-s.exited:
		return s.err
	case <-ctx.Done():
		s.Kill()
		return fmt.Errorf("mayfly did not stop: %w", ctx.Err())
	}
}

// Pid returns the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Signal sends sig to the process (SIGHUP: reload).
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Wait waits for the process to exit by itself (a client's SHUTDOWN) and
// returns its exit error (nil for a clean exit).
func (s *Server) Wait(ctx context.Context) error {
	select {
	case <-s.exited:
		return s.err
	case <-ctx.Done():
		return fmt.Errorf("mayfly did not exit: %w", ctx.Err())
	}
}

// Kill stops the process at once with SIGKILL (a crash) and waits for it.
func (s *Server) Kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.exited
}

// Tool returns the path of a client tool (mongosh, redis-cli). Tools that
// the test command installs live in .tools/ at the module root. A missing
// tool skips the test on a developer's machine and fails it in CI (CI=true),
// where the test command must have installed it.
func Tool(t testing.TB, name string) string {
	t.Helper()
	if root, err := Root(); err == nil {
		local := filepath.Join(root, ".tools", "node_modules", ".bin", name)
		if _, err := os.Stat(local); err == nil {
			return local
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; the test command (scripts/test.sh) installs it", name)
	}
	t.Skipf("%s is not installed; run scripts/test.sh to install it", name)
	return ""
}

// Advance moves the clock of a server started with --manual-clock forward
// by d and wakes its sweeper.
func (s *Server) Advance(t testing.TB, d time.Duration) {
	t.Helper()
	resp, err := http.Post("http://"+s.HTTPAddr+"/debug/clock?advance="+d.String(), "text/plain", nil)
	if err != nil {
		t.Fatalf("advance clock: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("advance clock: %s: %s", resp.Status, body)
	}
}
