package resp

import "github.com/mayfly/mayfly/internal/kv"

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
