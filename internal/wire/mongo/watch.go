package mongo

import "time"

// A connection reads and processes its messages in one goroutine, which
// saves a goroutine hand-off per request. While a request is processed
// nothing reads the socket, so a client's disconnect would go unnoticed
// until the reply is sent; a request still running after watchDelay
// therefore starts a watcher: a goroutine that reads the next message (or
// the disconnect, which cancels the connection's context and with it the
// request) and hands it to serve. Short requests, nearly all of them, cost
// one timer reset and stop.

// watchDelay is how long a request runs before a watcher reads the
// connection.
const watchDelay = 5 * time.Millisecond

// readResult is what a watcher read: the next message, or ok false when
// the connection must end.
type readResult struct {
	frame []byte
	ok    bool
}

// startWatch arms the watch of the request about to be processed.
func (c *conn) startWatch() {
	c.watchMu.Lock()
	c.busy = true
	c.watchMu.Unlock()
	if c.watch == nil {
		c.watch = time.AfterFunc(watchDelay, c.watchFired)
		return
	}
	c.watch.Reset(watchDelay)
}

// watchFired runs when a request has been processed for watchDelay: it
// reads the next message for serve. A firing left over from a request
// already answered finds the connection idle (or watches the next request
// a little early, which is harmless).
func (c *conn) watchFired() {
	c.watchMu.Lock()
	if !c.busy || c.watching || c.closed {
		c.watchMu.Unlock()
		return
	}
	c.watching = true
	c.watchMu.Unlock()
	c.s.mu.Lock()
	c.s.changedLocked()
	c.s.mu.Unlock()
	frame, ok := c.readMessage()
	c.watched <- readResult{frame: frame, ok: ok}
}

// stopWatch ends the watch of the request just answered and reports
// whether a watcher is reading the next message, which serve must then
// take from nextWatched instead of reading it.
func (c *conn) stopWatch() bool {
	c.watch.Stop()
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	c.busy = false
	return c.watching
}

// nextWatched waits for the message the watcher read.
func (c *conn) nextWatched() readResult {
	r := <-c.watched
	c.watchMu.Lock()
	c.watching = false
	c.watchMu.Unlock()
	return r
}

// endWatch stops watching for good when serve returns: no watcher starts
// any more, and one still reading is stopped by closing the connection and
// waited for.
func (c *conn) endWatch() {
	if c.watch != nil {
		c.watch.Stop()
	}
	c.watchMu.Lock()
	c.closed = true
	watching := c.watching
	c.watchMu.Unlock()
	if watching {
		c.nc.Close()
		<-c.watched
	}
}
