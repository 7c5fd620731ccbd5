package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ensure that the config file sets flags, flags given on the command line
// win, and mistakes name the line.
func TestApplyConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mayfly.conf")
	conf := "# comment\n\ndir = \"/var/lib/mayfly\"\nresp-addr = 127.0.0.1:7000\nlog-level = debug\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := newServeCommand()
	if err := cmd.Flags().Parse([]string{"--resp-addr", "127.0.0.1:7001"}); err != nil {
		t.Fatal(err)
	}
	if err := applyConfigFile(path, cmd.Flags()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"dir": "/var/lib/mayfly", "resp-addr": "127.0.0.1:7001", "log-level": "debug"} {
		if got := cmd.Flags().Lookup(name).Value.String(); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	for content, want := range map[string]string{
		"nonsense\n":             "mayfly.conf:1: want 'name = value'",
		"colour = blue\n":        `unknown setting "colour"`,
		"\nshutdown-timeout = x": "mayfly.conf:2: shutdown-timeout",
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		err := applyConfigFile(path, newServeCommand().Flags())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %q: err = %v, want %q", content, err, want)
		}
	}
}
