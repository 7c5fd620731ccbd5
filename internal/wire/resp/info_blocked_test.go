package resp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// infoField returns the value of field in INFO section.
func infoField(t *testing.T, e *env, section, field string) string {
	t.Helper()
	info, err := e.client(2).Info(t.Context(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s: %q", section, field, info)
	return ""
}

// Ensure that INFO clients counts the clients blocked in BLPOP, BZPOPMIN
// and the like, each once however many keys it waits on, and stops
// counting them once they are served.
func TestInfoBlockedClients(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	if got := infoField(t, e, "clients", "blocked_clients"); got != "0" {
		t.Fatalf("idle: blocked_clients:%s", got)
	}
	ch := goBLPop(t, e.client(2), 0, "a", "q")
	blockedClients(t, c, "blpop", 1)
	if got := infoField(t, e, "clients", "blocked_clients"); got != "1" {
		t.Fatalf("one BLPOP on two keys: blocked_clients:%s", got)
	}
	zc := e.client(2)
	zch := make(chan error, 1)
	go func() { _, err := zc.BZPopMin(t.Context(), 0, "z").Result(); zch <- err }()
	blockedClients(t, c, "bzpopmin", 1)
	if got := infoField(t, e, "clients", "blocked_clients"); got != "2" {
		t.Fatalf("BLPOP and BZPOPMIN: blocked_clients:%s", got)
	}
	if err := c.RPush(t.Context(), "q", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if r := recv(t, ch); r.err != nil || !slices.Equal(r.val, []string{"q", "x"}) {
		t.Fatalf("BLPOP = %v %v", r.val, r.err)
	}
	if got := infoField(t, e, "clients", "blocked_clients"); got != "1" {
		t.Fatalf("after serving BLPOP: blocked_clients:%s", got)
	}
	if err := c.ZAdd(t.Context(), "z", redis.Z{Score: 1, Member: "m"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-zch; err != nil {
		t.Fatalf("BZPOPMIN: %v", err)
	}
	if got := infoField(t, e, "clients", "blocked_clients"); got != "0" {
		t.Fatalf("all served: blocked_clients:%s", got)
	}
}
