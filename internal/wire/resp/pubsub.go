package resp

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/kv"
)

// hub routes published messages to subscribed clients. Publishing never
// blocks: messages are queued on each receiver (client.deliver).
type hub struct {
	mu       sync.RWMutex
	channels map[string]map[*client]struct{}
	patterns map[string]map[*client]struct{}
	shards   map[string]map[*client]struct{} // shard channels (SSUBSCRIBE), a namespace of their own
	byClient map[*client]*subscriptions
	notify   atomic.Int64 // notify-keyspace-events flags
}

type subscriptions struct {
	channels map[string]struct{}
	patterns map[string]struct{}
	shards   map[string]struct{}
	order    []string // channels in subscription order, for UNSUBSCRIBE without args
	porder   []string
	sorder   []string
}

// total counts every subscription, shard channels included: what puts a
// RESP2 client in the pub/sub context.
func (s *subscriptions) total() int { return len(s.channels) + len(s.patterns) + len(s.shards) }

func newHub() *hub {
	return &hub{
		channels: make(map[string]map[*client]struct{}),
		patterns: make(map[string]map[*client]struct{}),
		shards:   make(map[string]map[*client]struct{}),
		byClient: make(map[*client]*subscriptions),
	}
}

func (h *hub) subsOf(c *client) *subscriptions {
	s := h.byClient[c]
	if s == nil {
		s = &subscriptions{channels: map[string]struct{}{}, patterns: map[string]struct{}{}, shards: map[string]struct{}{}}
		h.byClient[c] = s
	}
	return s
}

// subscribe adds c to channel (pattern when pat) and returns c's total
// subscription count.
func (h *hub) subscribe(c *client, name string, pat bool) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.subsOf(c)
	set, m := s.channels, h.channels
	if pat {
		set, m = s.patterns, h.patterns
	}
	if _, ok := set[name]; !ok {
		set[name] = struct{}{}
		if pat {
			s.porder = append(s.porder, name)
		} else {
			s.order = append(s.order, name)
		}
		if m[name] == nil {
			m[name] = make(map[*client]struct{})
		}
		m[name][c] = struct{}{}
	}
	n := len(s.channels) + len(s.patterns)
	c.setSubs(s.total())
	return n
}

// unsubscribe removes c from name; it returns c's remaining count.
func (h *hub) unsubscribe(c *client, name string, pat bool) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.byClient[c]
	if s == nil {
		return 0
	}
	set, m := s.channels, h.channels
	if pat {
		set, m = s.patterns, h.patterns
	}
	if _, ok := set[name]; ok {
		delete(set, name)
		if pat {
			s.porder = remove(s.porder, name)
		} else {
			s.order = remove(s.order, name)
		}
		delete(m[name], c)
		if len(m[name]) == 0 {
			delete(m, name)
		}
	}
	n := len(s.channels) + len(s.patterns)
	if s.total() == 0 {
		delete(h.byClient, c)
	}
	c.setSubs(s.total())
	return n
}

func remove(list []string, name string) []string {
	for i, v := range list {
		if v == name {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// list returns c's channels (or patterns) in subscription order.
func (h *hub) list(c *client, pat bool) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	s := h.byClient[c]
	if s == nil {
		return nil
	}
	if pat {
		return append([]string(nil), s.porder...)
	}
	return append([]string(nil), s.order...)
}

func (h *hub) unsubscribeAll(c *client) {
	for _, ch := range h.list(c, false) {
		h.unsubscribe(c, ch, false)
	}
	for _, p := range h.list(c, true) {
		h.unsubscribe(c, p, true)
	}
	for _, ch := range h.listShard(c) {
		h.unsubscribeShard(c, ch)
	}
}

// publish delivers message on channel and returns the number of receivers
// (a client subscribed by channel and pattern counts twice, as in Redis).
func (h *hub) publish(channel, message []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	var m2, m3 []byte
	for c := range h.channels[string(channel)] {
		if c.proto() >= 3 {
			if m3 == nil {
				m3 = encodeMessage(3, channel, message)
			}
			c.deliver(m3)
		} else {
			if m2 == nil {
				m2 = encodeMessage(2, channel, message)
			}
			c.deliver(m2)
		}
		n++
	}
	for pat, clients := range h.patterns {
		if !glob.Match([]byte(pat), channel, false) {
			continue
		}
		var p2, p3 []byte
		for c := range clients {
			if c.proto() >= 3 {
				if p3 == nil {
					p3 = encodePMessage(3, []byte(pat), channel, message)
				}
				c.deliver(p3)
			} else {
				if p2 == nil {
					p2 = encodePMessage(2, []byte(pat), channel, message)
				}
				c.deliver(p2)
			}
			n++
		}
	}
	return n
}

func encodeMessage(proto int, channel, message []byte) []byte {
	w := NewWriter(proto)
	w.Push(3)
	w.BulkString("message")
	w.Bulk(channel)
	w.Bulk(message)
	return w.Bytes()
}

func encodePMessage(proto int, pattern, channel, message []byte) []byte {
	w := NewWriter(proto)
	w.Push(4)
	w.BulkString("pmessage")
	w.Bulk(pattern)
	w.Bulk(channel)
	w.Bulk(message)
	return w.Bytes()
}

// counts returns the number of channels, patterns and subscribed clients.
func (h *hub) counts() (channels, patterns, clients int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels), len(h.patterns), len(h.byClient)
}

// channelNames returns the active channels matching pattern (nil for all).
func (h *hub) channelNames(pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for ch := range h.channels {
		if pattern == nil || glob.Match(pattern, []byte(ch), false) {
			out = append(out, ch)
		}
	}
	return out
}

func (h *hub) numSub(channel string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels[channel])
}

func (c *client) setSubs(n int) {
	c.pmu.Lock()
	c.subs = n
	c.pmu.Unlock()
}

func (c *client) proto() int {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return c.protoV
}

// applyNotify installs notify-keyspace-events: kv records only the enabled
// classes, and only when K or E asks for delivery.
func (s *Server) applyNotify(flags int) {
	s.hub.notify.Store(int64(flags))
	mask := kv.Class(0)
	if flags&(notifyKeyspace|notifyKeyevent) != 0 {
		mask = kv.Class(flags & 0xffff)
	}
	s.kv.SetNotifyMask(mask)
}

// observer receives kv's commits: keyspace events are published, touched
// keys invalidate WATCH and the keys clients cache (tracker).
type observer struct{ s *Server }

// WatchedKeys names the watched keys of db, so that a flush or a swap
// touches only those it changes.
func (o observer) WatchedKeys(db int) []string { return o.s.watches.keysOf(db) }

func (o observer) Committed(events []kv.Event, touches []kv.Touch) {
	s := o.s
	if len(events) > 0 {
		flags := int(s.hub.notify.Load())
		for _, e := range events {
			db := strconv.Itoa(e.DB)
			if flags&notifyKeyspace != 0 {
				s.hub.publish([]byte("__keyspace@"+db+"__:"+e.Key), []byte(e.Name))
			}
			if flags&notifyKeyevent != 0 {
				s.hub.publish([]byte("__keyevent@"+db+"__:"+e.Name), []byte(e.Key))
			}
		}
	}
	if len(touches) > 0 {
		s.watches.touch(touches)
		if s.tracking.active.Load() {
			s.tracking.committed(touches)
		}
	}
}
