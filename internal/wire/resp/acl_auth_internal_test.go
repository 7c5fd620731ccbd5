package resp

import (
	"testing"
	"time"
)

func TestAuthDelay(t *testing.T) {
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second, 5 * time.Second}
	var d authDelays
	now := time.Unix(1000, 0)
	for i, w := range want {
		if got := d.failed("10.0.0.1", now); got != w {
			t.Errorf("failure %d: delay %v, want %v", i+1, got, w)
		}
	}
	if got := d.failed("10.0.0.2", now); got != 0 {
		t.Errorf("another address waits %v", got)
	}
	d.succeeded("10.0.0.1")
	if got := d.failed("10.0.0.1", now); got != 0 {
		t.Errorf("after a success: %v", got)
	}
	if got := d.failed("10.0.0.1", now.Add(authDelayKeep+time.Second)); got != 0 {
		t.Errorf("after a long pause: %v", got)
	}
}
