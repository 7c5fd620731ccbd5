package integration_test

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// transcriptStep is one step of a redis-cli transcript: commands sent
// through one redis-cli process with their expected output, or a clock
// advance.
type transcriptStep struct {
	commands []string
	want     []string // expected output lines of all the commands
	advance  time.Duration
	line     int
}

type transcriptSession struct {
	name  string
	steps []transcriptStep
}

// readTranscript parses testdata/seed002_redis_cli.txt's format. Commands
// between MULTI and EXEC share one step (one connection); every other
// command is a step of its own, so its output can be compared alone.
func readTranscript(t *testing.T, path string) []transcriptSession {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sessions []transcriptSession
	var cur *transcriptSession
	inMulti := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "== "):
			sessions = append(sessions, transcriptSession{name: strings.TrimPrefix(line, "== ")})
			cur = &sessions[len(sessions)-1]
		case strings.HasPrefix(line, "advance "):
			d, err := time.ParseDuration(strings.TrimPrefix(line, "advance "))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			cur.steps = append(cur.steps, transcriptStep{advance: d, line: n})
		case strings.HasPrefix(line, "> "):
			cmd := strings.TrimPrefix(line, "> ")
			if inMulti {
				last := &cur.steps[len(cur.steps)-1]
				last.commands = append(last.commands, cmd)
			} else {
				cur.steps = append(cur.steps, transcriptStep{commands: []string{cmd}, line: n})
			}
			verb := strings.ToUpper(strings.Fields(cmd)[0])
			if verb == "MULTI" {
				inMulti = true
			} else if verb == "EXEC" || verb == "DISCARD" {
				inMulti = false
			}
		default:
			last := &cur.steps[len(cur.steps)-1]
			last.want = append(last.want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sessions
}

// sameReply compares redis-cli output lines, allowing a TTL reply to be one
// more than the transcript's (the seed's clock kept running between
// commands; mayfly's manual clock does not).
func sameReply(cmd string, got, want []string) bool {
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return true
	}
	if verb := strings.ToUpper(strings.Fields(cmd)[0]); (verb == "TTL" || verb == "PTTL") && len(got) == 1 && len(want) == 1 {
		g, err1 := strconv.Atoi(strings.TrimPrefix(got[0], "(integer) "))
		w, err2 := strconv.Atoi(strings.TrimPrefix(want[0], "(integer) "))
		return err1 == nil && err2 == nil && (g == w || g == w+1)
	}
	return false
}

// Ensure that every redis-cli session of a Turkish article on Redis key
// expiry (testdata) gives the same replies from mayfly through redis-cli.
func TestSeed002RedisCLISessions(t *testing.T) {
	cli := harness.Tool(t, "redis-cli")
	s := harness.Start(t, "--manual-clock")
	host, port, err := net.SplitHostPort(s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, commands []string) []string {
		t.Helper()
		cmd := exec.Command(cli, "-h", host, "-p", port, "--no-raw")
		cmd.Stdin = strings.NewReader(strings.Join(commands, "\n") + "\n")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %q: %v\n%s", commands, err, out)
		}
		return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	}
	for _, session := range readTranscript(t, "testdata/seed002_redis_cli.txt") {
		t.Run(session.name, func(t *testing.T) {
			run(t, []string{"FLUSHALL"})
			for _, step := range session.steps {
				if step.advance > 0 {
					s.Advance(t, step.advance)
					continue
				}
				got := run(t, step.commands)
				if !sameReply(step.commands[0], got, step.want) {
					t.Errorf("line %d: %q\n got: %q\nwant: %q", step.line, step.commands, got, step.want)
				}
			}
		})
	}
}
