package resp

import (
	"slices"

	"github.com/mayfly/mayfly/internal/kv"
)

// serveStreamWaiters serves the clients blocked with XREAD or XREADGROUP
// on the stream k, in the order they blocked. Unlike a pop, reading a
// stream takes nothing from the others, and each waiter waits for
// entries after its own ID: every one is tried, not only the first.
func serveStreamWaiters(x *cmdCtx, bk blockKey, k []byte) {
	blocking.mu.Lock()
	var ws []*blockWaiter
	for _, w := range blocking.m[bk] {
		if w.typ == kv.TypeStream {
			ws = append(ws, w)
		}
	}
	blocking.mu.Unlock()
	for _, w := range ws {
		if !w.registered() { // served through another of its keys
			continue
		}
		r, ok, _, err := w.serve(x.tx, k)
		if err != nil {
			r, ok = blockResult{err: err}, true
		}
		if !ok {
			continue
		}
		w.unregister()
		w.done <- r
	}
}

// errStreamGone ends the wait of an XREADGROUP whose stream went.
const errStreamGone = replyErr("UNBLOCKED the stream key no longer exists")

// StreamsGone ends, with an error, the wait of the clients blocked in
// XREADGROUP on the streams a commit removed, as Redis does on the
// deletion (or replacement) of the key rather than at the next XADD,
// which could not serve them since their group went with it.
func (o observer) StreamsGone(keys []kv.Touch) {
	blocking.mu.Lock()
	var ended []*blockWaiter
	for bk, q := range blocking.m {
		if bk.srv != o.s || !streamGoneMatch(keys, bk) {
			continue
		}
		for _, w := range q {
			if w.groupRead && !slices.Contains(ended, w) {
				ended = append(ended, w)
			}
		}
	}
	blocking.mu.Unlock()
	for _, w := range ended {
		w.unregister()
		w.done <- blockResult{err: errStreamGone}
	}
}

func streamGoneMatch(keys []kv.Touch, bk blockKey) bool {
	for _, k := range keys {
		if k.DB == bk.db && (k.All || k.Key == bk.key) {
			return true
		}
	}
	return false
}
