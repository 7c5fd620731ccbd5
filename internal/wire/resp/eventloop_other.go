//go:build !linux

package resp

import (
	"errors"
	"net"
)

// Without epoll there is no event loop: every connection is served by a
// goroutine (serve).

type eventLoops struct{}

type eventLoop struct{}

type loopConn struct{ loop *eventLoop }

func newEventLoops(*Server, int) (*eventLoops, error) {
	return nil, errors.New("resp: the event loop needs Linux's epoll")
}

func (*eventLoops) attach(*client, *net.TCPConn) bool { return false }

func (*loopConn) start() {}

func (*loopConn) stop() {}

func (*eventLoops) stop() {}

func eventLoopCount() int { return 1 }

func (*loopConn) watch() (<-chan struct{}, func()) { return make(chan struct{}), func() {} }
