package mongo

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// clusterTimeReserve is how far ahead of the times handed out the stored
// bound is kept: the bound is written once per this much time.
const clusterTimeReserve = 60 // seconds

// clusterClock hands out MongoDB cluster times: Timestamp(seconds of the
// injected clock, a counter within the second), strictly increasing, also
// across restarts: every time handed out is below a bound stored in the
// document database, and after a restart times start at that bound.
//
// Every reply carries a new time as $clusterTime and operationTime, so a
// reply's operationTime is after every write acknowledged before it; a
// read's afterClusterTime is therefore always satisfied on this one
// server, and a time a client gossips from the future moves the clock
// forward.
type clusterClock struct {
	s *Server

	mu     sync.Mutex
	loaded bool
	last   bson.Timestamp
	bound  uint32
}

// tick returns a new cluster time.
func (cc *clusterClock) tick() (bson.Timestamp, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.loaded {
		b, err := cc.s.db.ClusterTimeBound()
		if err != nil {
			return bson.Timestamp{}, err
		}
		cc.bound = b
		cc.last = bson.Timestamp{T: b}
		cc.loaded = true
	}
	secs := uint32(cc.s.now().Unix())
	if secs > cc.last.T {
		cc.last = bson.Timestamp{T: secs, I: 1}
	} else {
		cc.last.I++
	}
	if cc.last.T >= cc.bound && !cc.writable() {
		// A secondary's bound is the primary's, which arrives through
		// replication; its own times are never persisted.
		if b, err := cc.s.db.ClusterTimeBound(); err == nil && b > cc.bound {
			cc.bound = b
		}
		return cc.last, nil
	}
	if cc.last.T >= cc.bound {
		next := cc.last.T + clusterTimeReserve
		if err := cc.s.db.SetClusterTimeBound(next); err != nil {
			return bson.Timestamp{}, err
		}
		cc.bound = next
	}
	return cc.last, nil
}

// writable reports whether this server may store the bound: a standalone
// or the primary of its replica set.
func (cc *clusterClock) writable() bool {
	rs := cc.s.opts.ReplicaSet
	return rs == nil || rs.Writable()
}

// reload restarts the clock at the stored bound when that is ahead of it,
// as on a member that became primary: the old primary's times are all
// below the bound it stored, which replicated here.
func (cc *clusterClock) reload() error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	b, err := cc.s.db.ClusterTimeBound()
	if err != nil {
		return err
	}
	if b > cc.last.T {
		cc.last = bson.Timestamp{T: b}
	}
	cc.bound = b
	cc.loaded = true
	return nil
}

// advance moves the clock to at least ts (a time a client gossiped).
func (cc *clusterClock) advance(ts bson.Timestamp) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.loaded && (ts.T > cc.last.T || ts.T == cc.last.T && ts.I > cc.last.I) {
		cc.last = ts
	}
}

// stamp appends $clusterTime and operationTime to a reply.
func (cc *clusterClock) stamp(reply bson.D) bson.D {
	ts, err := cc.tick()
	if err != nil {
		cc.s.log.Error("cluster time", "error", err)
		return reply
	}
	return append(reply,
		bson.E{Key: "$clusterTime", Value: bson.D{
			{Key: "clusterTime", Value: ts},
			{Key: "signature", Value: bson.D{
				{Key: "hash", Value: bson.Binary{Subtype: bson.TypeBinaryGeneric, Data: make([]byte, 20)}},
				{Key: "keyId", Value: int64(0)},
			}},
		}},
		bson.E{Key: "operationTime", Value: ts},
	)
}

// checkReadConcern checks readConcern's afterClusterTime, which must be a
// timestamp, and moves the clock to it.
func (cc *clusterClock) checkReadConcern(v bson.RawValue) error {
	doc, ok := v.DocumentOK()
	if !ok {
		// The command's own parser reports a readConcern of the wrong
		// type.
		return nil
	}
	at, err := doc.LookupErr("afterClusterTime")
	if err != nil {
		return nil
	}
	t, i, ok := at.TimestampOK()
	if !ok {
		return typeMismatch("readConcern", "afterClusterTime", at.Type, "timestamp")
	}
	cc.advance(bson.Timestamp{T: t, I: i})
	return nil
}
