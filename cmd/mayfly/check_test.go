package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mayfly/mayfly/internal/storage"
)

// runCheck runs `mayfly check --dir dir` and returns its output and error.
func runCheck(t *testing.T, dir string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"check", "--dir", dir})
	err := root.Execute()
	return out.String(), err
}

// Ensure that `mayfly check` prints ok for a consistent directory and
// fails with the problems of a damaged one, document and key-value alike.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	st, err := storage.Open(storage.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := runCheck(t, dir); err != nil || out != "ok\n" {
		t.Fatalf("check of an empty directory = %q, %v; want ok", out, err)
	}

	st, err = storage.Open(storage.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b := st.NewBatch()
	// A document of no collection; a list element of no key.
	err = errors.Join(
		b.Set([]byte{storage.PrefixDocument, 0, 0, 0, 0, 0, 0, 0, 42, 1}, []byte{5, 0, 0, 0, 0}),
		b.Set([]byte{storage.PrefixRedisSub, 0, 0, 0, 0, 0, 0, 0, 0, 9, 'x'}, []byte("v")),
		b.Commit(), b.Close(), st.Close())
	if err != nil {
		t.Fatal(err)
	}
	out, err := runCheck(t, dir)
	if err == nil {
		t.Fatalf("check of a damaged directory passed: %q", out)
	}
	for _, want := range []string{"check " + dir + ": ", "documents under collection id 42", "kv: check db 0: orphan elements: elements of version 9"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\nlacks %q", err, want)
		}
	}
}
