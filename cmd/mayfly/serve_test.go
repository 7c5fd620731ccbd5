package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Ensure the limit flags of serve: their defaults (60 s frame timeout,
// MongoDB's 1,000,000 connections, Redis's 10,000 clients, the goroutine
// connection loop) and that the config file sets them under the same
// names.
func TestServeLimitFlags(t *testing.T) {
	defaults := map[string]string{"frame-timeout": "1m0s", "mongo-max-connections": "1000000", "resp-max-clients": "10000", "resp-event-loop": "false"}
	flags := newServeCommand().Flags()
	for name, want := range defaults {
		fl := flags.Lookup(name)
		if fl == nil {
			t.Fatalf("no --%s flag", name)
		}
		if got := fl.Value.String(); got != want {
			t.Errorf("--%s default %q, want %q", name, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), "mayfly.conf")
	conf := "frame-timeout = 5s\nmongo-max-connections = 10\nresp-max-clients = 7\nresp-event-loop = true\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := applyConfigFile(path, flags); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"frame-timeout": "5s", "mongo-max-connections": "10", "resp-max-clients": "7", "resp-event-loop": "true"} {
		if got := flags.Lookup(name).Value.String(); got != want {
			t.Errorf("%s = %q from the config file, want %q", name, got, want)
		}
	}
}
