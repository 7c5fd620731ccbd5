package kv

import (
	"bytes"
	"testing"
)

// Ensure that the functions record is stored, read back in the same and a
// later Tx, survives FLUSHALL, passes the check, and goes when emptied.
func TestFunctionsRecord(t *testing.T) {
	cs := openCheckStore(t)
	payload := []byte("\xf5\x05hello\x0a\x00crc64...")
	cs.run(t, 0, func(tx *Tx) error {
		if err := tx.SetFunctions(payload); err != nil {
			return err
		}
		got, err := tx.Functions()
		if err == nil && !bytes.Equal(got, payload) {
			t.Errorf("Functions in the writing Tx = %q", got)
		}
		return err
	})
	cs.run(t, 0, func(tx *Tx) error { return tx.FlushAll() })
	cs.run(t, 0, func(tx *Tx) error {
		got, err := tx.Functions()
		if err == nil && !bytes.Equal(got, payload) {
			t.Errorf("Functions after FLUSHALL = %q", got)
		}
		return err
	})
	if err := cs.Check(t.Context()); err != nil {
		t.Fatalf("check with functions stored: %v", err)
	}
	cs.run(t, 0, func(tx *Tx) error { return tx.SetFunctions(nil) })
	cs.run(t, 0, func(tx *Tx) error {
		got, err := tx.Functions()
		if err == nil && got != nil {
			t.Errorf("Functions after deletion = %q", got)
		}
		return err
	})
}
