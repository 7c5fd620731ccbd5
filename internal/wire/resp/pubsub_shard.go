package resp

import "github.com/mayfly/mayfly/internal/glob"

// Shard channels: Redis 7.0's sharded pub/sub (SSUBSCRIBE, SPUBLISH). On a
// single node they are plain channels in a namespace of their own: a
// message published with SPUBLISH reaches only SSUBSCRIBE's subscribers
// (as an `smessage`), PUBLISH never reaches them, no pattern matches them,
// and SSUBSCRIBE's counts are of shard channels only.

// subscribeShard adds c to shard channel name and returns c's count of
// shard channels.
func (h *hub) subscribeShard(c *client, name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.subsOf(c)
	if _, ok := s.shards[name]; !ok {
		s.shards[name] = struct{}{}
		s.sorder = append(s.sorder, name)
		if h.shards[name] == nil {
			h.shards[name] = make(map[*client]struct{})
		}
		h.shards[name][c] = struct{}{}
	}
	c.setSubs(s.total())
	return len(s.shards)
}

// unsubscribeShard removes c from shard channel name and returns c's
// remaining count of shard channels.
func (h *hub) unsubscribeShard(c *client, name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.byClient[c]
	if s == nil {
		return 0
	}
	if _, ok := s.shards[name]; ok {
		delete(s.shards, name)
		s.sorder = remove(s.sorder, name)
		delete(h.shards[name], c)
		if len(h.shards[name]) == 0 {
			delete(h.shards, name)
		}
	}
	if s.total() == 0 {
		delete(h.byClient, c)
	}
	c.setSubs(s.total())
	return len(s.shards)
}

// listShard returns c's shard channels in subscription order.
func (h *hub) listShard(c *client) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if s := h.byClient[c]; s != nil {
		return append([]string(nil), s.sorder...)
	}
	return nil
}

// shardCount is c's number of shard channels.
func (h *hub) shardCount(c *client) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if s := h.byClient[c]; s != nil {
		return len(s.shards)
	}
	return 0
}

// publishShard delivers message to the subscribers of shard channel
// channel and returns how many there were.
func (h *hub) publishShard(channel, message []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var m2, m3 []byte
	for c := range h.shards[string(channel)] {
		if c.proto() >= 3 {
			if m3 == nil {
				m3 = encodeSMessage(3, channel, message)
			}
			c.deliver(m3)
		} else {
			if m2 == nil {
				m2 = encodeSMessage(2, channel, message)
			}
			c.deliver(m2)
		}
	}
	return len(h.shards[string(channel)])
}

func encodeSMessage(proto int, channel, message []byte) []byte {
	w := NewWriter(proto)
	w.Push(3)
	w.BulkString("smessage")
	w.Bulk(channel)
	w.Bulk(message)
	return w.Bytes()
}

// shardChannelNames returns the active shard channels matching pattern
// (nil for all).
func (h *hub) shardChannelNames(pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for ch := range h.shards {
		if pattern == nil || glob.Match(pattern, []byte(ch), false) {
			out = append(out, ch)
		}
	}
	return out
}

func (h *hub) shardNumSub(channel string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.shards[channel])
}
