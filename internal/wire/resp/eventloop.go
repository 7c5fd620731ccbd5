//go:build linux

package resp

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The event loop (Options.EventLoop, --resp-event-loop) serves plain TCP
// connections from one epoll loop per core instead of a goroutine each: a
// loop reads every ready connection, parses its complete requests and runs
// them in place, one kv transaction and one write per chunk as serve does.
// A chunk with a command that may wait (chunkMayWait: the blocking
// commands, WAIT, scripts, authentication delays, DEBUG SLEEP, SAVE) is
// handed to a goroutine, which runs it and gives the connection back; the
// loop neither reads nor runs that connection's requests meanwhile, so
// pipelined requests keep their order. Replies are written without
// blocking: what the socket does not take at once waits in the
// connection's output buffer, written when epoll says the socket has room,
// and the loop stops reading a connection whose output buffer holds more
// than writeChunk bytes. TLS connections are served by goroutines.
//
// Timeouts are checked by each loop every loopTick: the frame timeout of a
// request being received and of an output buffer that the client does not
// take, and CONFIG timeout for idle clients.

// loopTick is how often a loop checks its connections' timeouts.
const loopTick = 50 * time.Millisecond

// loopEvents is how many epoll events a loop takes per wait.
const loopEvents = 256

// eventLoops are the server's loops.
type eventLoops struct {
	loops []*eventLoop
	mu    sync.Mutex
	next  int
}

// eventLoop is one epoll loop and the connections registered with it.
type eventLoop struct {
	s    *Server
	epfd int
	// wakefd is an eventfd that resume writes to, so that the loop looks at
	// the connections in woken.
	wakefd int

	mu      sync.Mutex
	conns   map[int32]*loopConn
	woken   []*loopConn
	stopped bool
	done    chan struct{}
}

// loopConn is a connection served by an event loop, on a duplicate of the
// accepted socket's descriptor (the accepted net.Conn is closed, so that
// Go's own poller no longer watches it). It is the client's net.Conn:
// writes go to its output buffer, Close shuts the socket down (the loop
// then closes it), and it cannot be read but by the loop. While a
// goroutine holds the connection the loop watches it for a hang-up only,
// which closes hangup (watchConn).
type loopConn struct {
	fd     int
	loop   *eventLoop
	c      *client
	local  net.Addr
	remote net.Addr
	hangup chan struct{} // closed once the socket hung up or was shut down

	// Owned by the loop, or by the goroutine the connection is handed to.
	buf      []byte
	lastRead time.Time

	mu       sync.Mutex
	out      []byte    // replies the socket has not taken yet
	progress time.Time // when out last had writeChunk bytes taken, or became non-empty
	taken    int       // bytes of out taken since progress
	handed   bool      // a goroutine runs the connection's commands
	finished bool      // the client's state is released; the fd closes once out is written (set by the loop)
	gone     bool      // the socket hung up while handed: it is out of the epoll set
	hungUp   bool      // hangup is closed
	shut     bool      // Close or a write failure shut the socket down
	closed   bool      // the fd is closed
	events   uint32    // the epoll interest registered
}

// newEventLoops starts n loops.
func newEventLoops(s *Server, n int) (*eventLoops, error) {
	ls := &eventLoops{}
	for range n {
		l, err := newEventLoop(s)
		if err != nil {
			ls.stop()
			return nil, err
		}
		ls.loops = append(ls.loops, l)
		go l.run()
	}
	return ls, nil
}

func newEventLoop(s *Server) (*eventLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("resp: event loop: epoll_create: %w", err)
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("resp: event loop: eventfd: %w", err)
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wfd)}); err != nil {
		unix.Close(epfd)
		unix.Close(wfd)
		return nil, fmt.Errorf("resp: event loop: register eventfd: %w", err)
	}
	return &eventLoop{s: s, epfd: epfd, wakefd: wfd, conns: make(map[int32]*loopConn), done: make(chan struct{})}, nil
}

// stop ends the loops and closes the connections still on them.
func (ls *eventLoops) stop() {
	for _, l := range ls.loops {
		l.mu.Lock()
		l.stopped = true
		l.mu.Unlock()
		l.wake()
		<-l.done
	}
}

// attach makes c's connection nc one of the next loop's, before c is
// published to other clients; false means it cannot be (it is not a
// socket), and the caller serves it with a goroutine. start then puts it
// on the loop.
func (ls *eventLoops) attach(c *client, nc *net.TCPConn) bool {
	rc, err := nc.SyscallConn()
	if err != nil {
		return false
	}
	fd := -1
	var derr error
	if err := rc.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil || fd < 0 {
		return false
	}
	local, remote := nc.LocalAddr(), nc.RemoteAddr()
	nc.Close() // the duplicate keeps the socket open
	ls.mu.Lock()
	l := ls.loops[ls.next%len(ls.loops)]
	ls.next++
	ls.mu.Unlock()
	lc := &loopConn{fd: fd, loop: l, c: c, local: local, remote: remote, hangup: make(chan struct{}),
		buf: make([]byte, 0, readBufferSize), lastRead: time.Now()}
	c.nc, c.lc = lc, lc
	return true
}

// start registers an attached connection with its loop; a connection
// that cannot be is closed.
func (lc *loopConn) start() {
	l := lc.loop
	l.mu.Lock()
	stopped := l.stopped
	if !stopped {
		l.conns[int32(lc.fd)] = lc
	}
	l.mu.Unlock()
	var err error
	if !stopped {
		lc.mu.Lock()
		err = lc.rearmLocked()
		lc.mu.Unlock()
	}
	if stopped || err != nil {
		if err != nil {
			l.s.log.Error("resp: event loop: cannot serve a connection", "client", lc.c.id, "err", err)
		}
		l.mu.Lock()
		delete(l.conns, int32(lc.fd))
		l.mu.Unlock()
		lc.mu.Lock()
		lc.closed = true
		lc.mu.Unlock()
		unix.Close(lc.fd)
		lc.c.leaving.Store(true)
		lc.c.release()
	}
}

// wake interrupts the loop's wait.
func (l *eventLoop) wake() {
	var one = [8]byte{1}
	unix.Write(l.wakefd, one[:])
}

// resume asks the loop to look at lc: a goroutine gave it back, or it is
// to close.
func (l *eventLoop) resume(lc *loopConn) {
	l.mu.Lock()
	l.woken = append(l.woken, lc)
	l.mu.Unlock()
	l.wake()
}

func (l *eventLoop) run() {
	defer close(l.done)
	events := make([]unix.EpollEvent, loopEvents)
	lastTick := time.Now()
	for {
		n, err := unix.EpollWait(l.epfd, events, int(loopTick/time.Millisecond))
		if err != nil && !errors.Is(err, unix.EINTR) {
			l.s.log.Error("resp: event loop: epoll_wait", "err", err)
			break
		}
		l.mu.Lock()
		stopped := l.stopped
		l.mu.Unlock()
		if stopped {
			break
		}
		for i := range max(n, 0) {
			ev := events[i]
			if int(ev.Fd) == l.wakefd {
				var b [8]byte
				unix.Read(l.wakefd, b[:])
				continue
			}
			l.mu.Lock()
			lc := l.conns[ev.Fd]
			l.mu.Unlock()
			if lc != nil {
				l.event(lc, ev.Events)
			}
		}
		l.mu.Lock()
		woken := l.woken
		l.woken = nil
		l.mu.Unlock()
		for _, lc := range woken {
			l.resumed(lc)
		}
		if now := time.Now(); now.Sub(lastTick) >= loopTick {
			lastTick = now
			l.tick(now)
		}
	}
	l.mu.Lock()
	conns := make([]*loopConn, 0, len(l.conns))
	for _, lc := range l.conns {
		conns = append(conns, lc)
	}
	l.mu.Unlock()
	for _, lc := range conns {
		lc.mu.Lock()
		lc.out = nil
		lc.mu.Unlock()
		if !lc.isHanded() {
			l.finish(lc)
		}
		l.closeFD(lc)
	}
	unix.Close(l.epfd)
	unix.Close(l.wakefd)
}

func (lc *loopConn) isHanded() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.handed
}

// event handles the epoll events of lc.
func (l *eventLoop) event(lc *loopConn, ev uint32) {
	if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
		lc.flushOut()
	}
	lc.mu.Lock()
	if lc.closed {
		lc.mu.Unlock()
		return
	}
	if lc.handed {
		if ev&(unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) != 0 && !lc.gone {
			// The goroutine's watch sees the hang-up; the loop looks again
			// when it gets the connection back.
			lc.gone = true
			unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
			lc.hangUpLocked()
		}
		lc.mu.Unlock()
		return
	}
	drained := lc.finished && len(lc.out) == 0
	lc.mu.Unlock()
	switch {
	case drained:
		l.closeFD(lc)
	case lc.finished:
	case ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0:
		l.read(lc)
	}
}

// read reads what lc's socket holds and runs the complete requests.
func (l *eventLoop) read(lc *loopConn) {
	c := lc.c
	s := l.s
	if c.stopping.Load() || c.dead.Load() || c.closeNext {
		l.finish(lc)
		return
	}
	buf := lc.buf
	if len(buf) == cap(buf) {
		var ok bool
		if buf, ok = c.grow(buf); !ok {
			l.finish(lc)
			return
		}
		lc.buf = buf
	}
	n, err := unix.Read(lc.fd, buf[len(buf):cap(buf)])
	if err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			return
		}
		l.finish(lc)
		return
	}
	if n == 0 {
		l.finish(lc)
		return
	}
	lc.lastRead = time.Now()
	s.stats.netIn.Add(int64(n))
	if len(buf) == 0 && s.opts.FrameTimeout > 0 {
		c.reqSince = lc.lastRead
	}
	lc.buf = buf[:len(buf)+n]
	l.runBuffered(lc)
}

// runBuffered runs the complete requests in lc's read buffer: in the loop,
// or handed to a goroutine when one of them may wait.
func (l *eventLoop) runBuffered(lc *loopConn) {
	c := lc.c
	buf := lc.buf
	c.noteReadBuffer(buf)
	pos, perr, more := c.parseChunk(buf)
	if more {
		return
	}
	ran := len(c.cmds) > 0 || perr != nil
	if ran && l.s.chunkMayWait(c.cmds) {
		lc.mu.Lock()
		lc.handed = true
		lc.rearmLocked()
		lc.mu.Unlock()
		go l.runHanded(lc, buf, pos, perr)
		return
	}
	if ran && !l.runChunk(lc, perr) {
		l.finish(lc)
		return
	}
	lc.buf = c.endChunk(buf, pos, ran)
	c.noteReadBuffer(lc.buf)
	lc.mu.Lock()
	lc.rearmLocked() // the output buffer may have filled
	lc.mu.Unlock()
}

// runChunk runs c.cmds in the loop, recovering a panic as serve does; it
// reports whether the connection stays open.
func (l *eventLoop) runChunk(lc *loopConn, perr error) (ok bool) {
	c := lc.c
	defer func() {
		if r := recover(); r != nil {
			l.s.log.Error("resp: panic serving connection", "client", c.id, "panic", r, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	return c.run(c.cmds, perr)
}

// runHanded runs the chunk of requests at the start of buf, which may
// wait, in its own goroutine, then gives the connection back to the loop.
func (l *eventLoop) runHanded(lc *loopConn, buf []byte, pos int, perr error) {
	c := lc.c
	ok := l.runChunk(lc, perr)
	if ok {
		buf = c.endChunk(buf, pos, true)
		c.noteReadBuffer(buf)
	}
	lc.buf = buf
	if !ok {
		c.closeNext = true
	}
	lc.mu.Lock()
	lc.handed = false
	lc.rearmLocked()
	lc.mu.Unlock()
	l.resume(lc)
}

// resumed handles a connection resume named: given back by a goroutine,
// or asked to close.
func (l *eventLoop) resumed(lc *loopConn) {
	lc.mu.Lock()
	handed, closed, gone := lc.handed, lc.closed, lc.gone
	lc.mu.Unlock()
	c := lc.c
	switch {
	case closed || handed:
	case lc.finished:
		lc.mu.Lock()
		drained := len(lc.out) == 0 || lc.shut
		lc.mu.Unlock()
		if drained {
			l.closeFD(lc)
		}
	case gone || c.closeNext || c.dead.Load() || c.stopping.Load():
		l.finish(lc)
	default:
		// Requests pipelined behind the handed chunk may be complete
		// already: no new data would announce them.
		l.runBuffered(lc)
	}
}

// finish ends the client: its state is released at once, and the socket
// closed once the replies still buffered are written.
func (l *eventLoop) finish(lc *loopConn) {
	if lc.finished {
		return
	}
	lc.mu.Lock()
	lc.finished = true
	lc.mu.Unlock()
	c := lc.c
	c.leaving.Store(true)
	c.release()
	lc.mu.Lock()
	drained := len(lc.out) == 0 || lc.shut || lc.gone
	if !drained {
		lc.rearmLocked()
	}
	lc.mu.Unlock()
	if drained {
		l.closeFD(lc)
	}
}

// closeFD takes lc off the loop and closes its socket.
func (l *eventLoop) closeFD(lc *loopConn) {
	lc.mu.Lock()
	if lc.closed {
		lc.mu.Unlock()
		return
	}
	lc.closed = true
	if !lc.gone {
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
	}
	lc.out = nil
	lc.mu.Unlock()
	l.mu.Lock()
	delete(l.conns, int32(lc.fd))
	l.mu.Unlock()
	unix.Close(lc.fd)
}

// tick closes the loop's connections past a timeout: a request not
// received within the frame timeout, an output buffer not taken within it,
// and CONFIG timeout for idle clients that subscribe to nothing.
func (l *eventLoop) tick(now time.Time) {
	l.mu.Lock()
	conns := make([]*loopConn, 0, len(l.conns))
	for _, lc := range l.conns {
		conns = append(conns, lc)
	}
	l.mu.Unlock()
	ft := l.s.opts.FrameTimeout
	idle := l.s.cfg.idleTimeout()
	for _, lc := range conns {
		c := lc.c
		lc.mu.Lock()
		handed, closed := lc.handed, lc.closed
		stalled := ft > 0 && len(lc.out) > 0 && now.Sub(lc.progress) >= ft
		if stalled {
			lc.out = nil
			lc.shutLocked()
		}
		lc.mu.Unlock()
		switch {
		case closed:
		case stalled:
			l.s.log.Info("resp: closing client that did not read its replies within the frame timeout",
				"client", c.id, "addr", lc.RemoteAddr().String(), "frame-timeout", ft)
			if !handed {
				l.finish(lc)
				l.closeFD(lc)
			}
		case handed || lc.finished:
		case ft > 0 && !c.reqSince.IsZero() && now.Sub(c.reqSince) >= ft:
			l.s.log.Info("resp: closing client that did not finish its request within the frame timeout",
				"client", c.id, "addr", lc.RemoteAddr().String(), "pending", len(lc.buf), "frame-timeout", ft)
			l.finish(lc)
		case idle > 0 && now.Sub(lc.lastRead) >= idle && c.subscriptions() == 0:
			l.s.log.Debug("resp: closing idle client", "client", c.id, "addr", lc.RemoteAddr().String())
			l.finish(lc)
		}
	}
}

// rearmLocked registers the epoll interest lc's state calls for: input
// while the loop holds the connection and its output buffer is not over
// writeChunk, output while the buffer holds anything. lc.mu is held.
func (lc *loopConn) rearmLocked() error {
	if lc.closed || lc.gone {
		return nil
	}
	var want uint32
	switch {
	case lc.handed:
		want |= unix.EPOLLRDHUP // for watchConn
	case !lc.finished && len(lc.out) <= writeChunk:
		want |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if len(lc.out) > 0 {
		want |= unix.EPOLLOUT
	}
	op := unix.EPOLL_CTL_ADD
	if lc.registered() {
		if lc.events&^epollRegistered == want {
			return nil
		}
		op = unix.EPOLL_CTL_MOD
	}
	if err := unix.EpollCtl(lc.loop.epfd, op, lc.fd, &unix.EpollEvent{Events: want, Fd: int32(lc.fd)}); err != nil {
		return fmt.Errorf("resp: event loop: epoll_ctl: %w", err)
	}
	lc.events = want | epollRegistered
	return nil
}

// epollRegistered marks, in loopConn.events, a connection added to the
// epoll set (whatever its interest).
const epollRegistered = 1 << 31

func (lc *loopConn) registered() bool { return lc.events&epollRegistered != 0 }

// Write queues b for the client: written at once as far as the socket
// takes it, the rest when epoll says it has room. It fails once the
// connection is shut down.
func (lc *loopConn) Write(b []byte) (int, error) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.shut || lc.closed {
		return 0, net.ErrClosed
	}
	n := len(b)
	if len(lc.out) == 0 {
		w, err := writeSome(lc.fd, b)
		if err != nil {
			lc.shutLocked()
			return 0, err
		}
		b = b[w:]
		if len(b) == 0 {
			return n, nil
		}
		lc.progress, lc.taken = time.Now(), 0
	}
	lc.out = append(lc.out, b...)
	if err := lc.rearmLocked(); err != nil {
		return 0, err
	}
	return n, nil
}

// writeSome writes as much of b as the socket takes without blocking.
func writeSome(fd int, b []byte) (int, error) {
	w := 0
	for w < len(b) {
		n, err := unix.Write(fd, b[w:])
		if err != nil {
			if errors.Is(err, unix.EAGAIN) {
				return w, nil
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return w, err
		}
		w += n
	}
	return w, nil
}

// flushOut writes the output buffer as far as the socket takes it.
func (lc *loopConn) flushOut() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if len(lc.out) == 0 || lc.closed {
		return
	}
	w, err := writeSome(lc.fd, lc.out)
	if err != nil {
		lc.out = nil
		lc.shutLocked()
		return
	}
	lc.taken += w
	if lc.taken >= writeChunk {
		lc.progress, lc.taken = time.Now(), 0
	}
	lc.out = lc.out[w:]
	if len(lc.out) == 0 {
		lc.out = nil
	} else if w > 0 && cap(lc.out) > 2*len(lc.out)+retainedBuffer {
		lc.out = slices.Clone(lc.out)
	}
	lc.rearmLocked()
}

// Close shuts the connection down from any goroutine (CLIENT KILL, a
// failed write): the loop sees the hang-up and closes it.
func (lc *loopConn) Close() error {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.out = nil
	lc.shutLocked()
	return nil
}

func (lc *loopConn) shutLocked() {
	if lc.shut || lc.closed {
		return
	}
	lc.shut = true
	unix.Shutdown(lc.fd, unix.SHUT_RDWR)
	lc.hangUpLocked()
}

// hangUpLocked closes hangup; lc.mu is held.
func (lc *loopConn) hangUpLocked() {
	if !lc.hungUp {
		lc.hungUp = true
		close(lc.hangup)
	}
}

// stop is Shutdown's request that the connection close once its commands
// are done: a blocked command's watch ends and the loop looks at it.
func (lc *loopConn) stop() {
	lc.mu.Lock()
	lc.hangUpLocked()
	lc.mu.Unlock()
	lc.loop.resume(lc)
}

// watch is watchConn for a connection on a loop: gone is closed when the
// peer hangs up, the connection is shut down (CLIENT KILL) or the server
// stops it.
func (lc *loopConn) watch() (gone <-chan struct{}, stop func()) {
	stopping := make(chan struct{})
	ch := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-lc.hangup:
			close(ch)
		case <-stopping:
		}
	}()
	return ch, func() {
		close(stopping)
		<-done
	}
}

// Read fails: only the loop reads the socket.
func (lc *loopConn) Read([]byte) (int, error) { return 0, errors.ErrUnsupported }

// LocalAddr is the accepted connection's local address.
func (lc *loopConn) LocalAddr() net.Addr { return lc.local }

// RemoteAddr is the accepted connection's remote address.
func (lc *loopConn) RemoteAddr() net.Addr { return lc.remote }

// SetReadDeadline does nothing: the loop times out requests being
// received.
func (lc *loopConn) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline does nothing: writes never block, and the loop times
// out an output buffer the client does not take.
func (lc *loopConn) SetWriteDeadline(time.Time) error { return nil }

// SetDeadline does nothing, as SetReadDeadline and SetWriteDeadline.
func (lc *loopConn) SetDeadline(time.Time) error { return nil }

// chunkMayWait reports whether a chunk of commands has one that may wait
// for another client, a timer or the disk, which must not hold up an
// event loop.
func (s *Server) chunkMayWait(cmds [][][]byte) bool {
	if chunkMayRunScript(cmds) {
		return true
	}
	for _, args := range cmds {
		if len(args) == 0 {
			continue
		}
		cmd, err := s.resolveCommand(args)
		if err != nil {
			continue
		}
		if cmdMayWait(cmd) {
			return true
		}
	}
	return false
}

// cmdMayWait reports whether cmd may wait: the commands flagged blocking,
// and those that wait on replicas, a timer (DEBUG SLEEP, the delay after a
// failed authentication), the disk (SAVE) or the server's stop.
func cmdMayWait(cmd *command) bool {
	if slices.Contains(cmd.flags, "blocking") {
		return true
	}
	name, _, _ := strings.Cut(cmd.name, "|")
	switch name {
	case "wait", "waitaof", "auth", "hello", "debug", "save", "shutdown", "failover", "bgsave", "bgrewriteaof", "flushall", "flushdb":
		return true
	}
	return false
}

// eventLoopCount is the number of loops: one per core Go runs on.
func eventLoopCount() int { return runtime.GOMAXPROCS(0) }
