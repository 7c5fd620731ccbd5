package resp_test

import "github.com/mayfly/mayfly/internal/kv"

// kvList builds the record of an empty list, standing in for the list
// commands another package will add.
func kvList(tx *kv.Tx) kv.Meta {
	m := kv.Meta{Type: kv.TypeList, Version: tx.NewVersion()}
	m.SetCount(1)
	return m
}
