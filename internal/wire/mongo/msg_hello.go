package mongo

import (
	"bytes"
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgHello answers hello, isMaster and ismaster: a standalone server that
// is writable, or a replica set member as it stands in its set (setName,
// hosts, primary, me, secondary, electionId, lastWrite), with the
// protocol limits drivers size their batches by, and the server's
// topologyVersion. With topologyVersion and maxAwaitTimeMS it is awaitable
// and, with exhaustAllowed, streams (topology.go).
//
// With saslSupportedMechs: "<db>.<user>" it names the user's mechanisms;
// with speculativeAuthenticate (a saslStart document with its db) it
// starts the conversation and answers its first reply, or (an
// authenticate document) it authenticates by MONGODB-X509 and answers
// authenticate's reply; it leaves the field out when that fails, as
// MongoDB does.
func msgHello(ctx context.Context, c *conn, req *request) (bson.D, error) {
	helloOk := false
	if v, err := req.cmd.LookupErr("helloOk"); err == nil {
		helloOk = truthy(v)
	}
	if v, err := req.cmd.LookupErr("client"); err == nil {
		if c.clientMeta != nil {
			return nil, errorf(mongoerr.ClientMetadataCannotBeMutated, "The client metadata document may only be sent in the first hello")
		}
		doc, ok := v.DocumentOK()
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch, "'client' field is wrong type, expected object")
		}
		c.clientMeta = bytes.Clone(doc) // kept for the connection's life, not the request's
		c.sharedMeta.Store(&c.clientMeta)
		c.log.Info("client metadata", "client", truncate(doc.String(), 1024))
	}
	await, err := parseAwaitableHello(req.cmd)
	if err != nil {
		return nil, err
	}
	tv, _ := c.s.topology()
	if await != nil {
		var waited time.Duration
		tv, waited, err = c.awaitTopology(ctx, await)
		req.waited = waited
		if err != nil {
			return nil, err
		}
	}
	if req.exhaust {
		if await == nil {
			return nil, errorf(mongoerr.Location51756, "An isMaster or hello request with exhaust must specify 'maxAwaitTimeMS'")
		}
		req.next = nextExhaustHello(req.cmd, await.known, tv)
	}
	d := make(bson.D, 0, 24)
	if helloOk {
		d = append(d, bson.E{Key: "helloOk", Value: true})
	}
	writable := true
	var view *ReplSetView
	if rs := c.s.opts.ReplicaSet; rs != nil {
		v := rs.View()
		view, writable = &v, v.IsPrimary
	}
	// A member's reply starts with topologyVersion, a standalone's with
	// isWritablePrimary, as MongoDB's.
	if view != nil {
		d = append(d, bson.E{Key: "topologyVersion", Value: tv.doc()})
	}
	if req.name == "hello" {
		d = append(d, bson.E{Key: "isWritablePrimary", Value: writable})
	} else {
		d = append(d, bson.E{Key: "ismaster", Value: writable})
	}
	if view == nil {
		d = append(d, bson.E{Key: "topologyVersion", Value: tv.doc()})
	}
	if view != nil {
		d = appendReplHello(d, view, c.s.now())
	}
	d = append(d,
		bson.E{Key: "maxBsonObjectSize", Value: int32(MaxBSONObjectSize)},
		bson.E{Key: "maxMessageSizeBytes", Value: int32(MaxMessageSizeBytes)},
		bson.E{Key: "maxWriteBatchSize", Value: int32(MaxWriteBatchSize)},
		bson.E{Key: "localTime", Value: bson.NewDateTimeFromTime(c.s.now())},
		bson.E{Key: "logicalSessionTimeoutMinutes", Value: int32(logicalSessions)},
		bson.E{Key: "connectionId", Value: int32(c.id)},
		bson.E{Key: "minWireVersion", Value: int32(minWireVersion)},
		bson.E{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		bson.E{Key: "readOnly", Value: false},
	)
	if v, err := req.cmd.LookupErr("saslSupportedMechs"); err == nil {
		mechs, err := c.saslSupportedMechs(ctx, v)
		if err != nil {
			return nil, err
		}
		if mechs != nil {
			d = append(d, bson.E{Key: "saslSupportedMechs", Value: mechs})
		}
	}
	if v, err := req.cmd.LookupErr("speculativeAuthenticate"); err == nil {
		if doc, ok := v.DocumentOK(); ok {
			if reply := c.speculativeAuthenticate(ctx, doc); reply != nil {
				d = append(d, bson.E{Key: "speculativeAuthenticate", Value: reply})
			}
		}
	}
	return d, nil
}

// saslSupportedMechs returns the mechanisms of the user named
// "<db>.<user>", or nil when there is no such user.
func (c *conn) saslSupportedMechs(ctx context.Context, v bson.RawValue) (bson.A, error) {
	s, ok := v.StringValueOK()
	if !ok {
		return nil, typeMismatch("hello", "saslSupportedMechs", v.Type, "string")
	}
	db, user, ok := strings.Cut(s, ".")
	if !ok {
		return nil, errorf(mongoerr.BadValue, "UserName must contain a '.' separated database.user pair")
	}
	u, err := c.s.findUser(ctx, userName{user, db})
	if err != nil || u == nil {
		return nil, err
	}
	mechs := bson.A{}
	for _, m := range u.mechanisms() {
		mechs = append(mechs, string(m))
	}
	return mechs, nil
}

// speculativeAuthenticate runs hello's speculative saslStart and returns
// its reply, or nil when it failed (the client then authenticates
// normally).
func (c *conn) speculativeAuthenticate(ctx context.Context, doc bson.Raw) bson.D {
	first, err := doc.IndexErr(0)
	if err != nil {
		return nil
	}
	if first.Key() == "authenticate" {
		// MONGODB-X509 always authenticates on $external, which the
		// drivers do not name here.
		db := mongoauth.ExternalDB
		if v, err := doc.LookupErr("db"); err == nil {
			db, _ = v.StringValueOK()
		}
		reply, err := c.authenticateX509(ctx, db, parseAuthenticate(doc), true)
		if err != nil {
			return nil
		}
		return reply
	}
	if first.Key() != "saslStart" {
		return nil
	}
	a, db, err := parseSaslStart(doc, true)
	if err != nil || db == "" {
		return nil
	}
	reply, err := c.saslStart(ctx, db, a, true)
	if err != nil {
		return nil
	}
	return reply
}

// appendReplHello appends hello's replica set fields, as a member of a
// MongoDB replica set reports them.
func appendReplHello(d bson.D, v *ReplSetView, now time.Time) bson.D {
	hosts := bson.A{}
	for _, m := range v.Members {
		if m.Host != "" {
			hosts = append(hosts, m.Host)
		}
	}
	d = append(d,
		bson.E{Key: "hosts", Value: hosts},
		bson.E{Key: "setName", Value: v.SetName},
		bson.E{Key: "setVersion", Value: int32(v.Version)},
		bson.E{Key: "secondary", Value: !v.IsPrimary},
	)
	if v.Primary != "" {
		d = append(d, bson.E{Key: "primary", Value: v.Primary})
	}
	d = append(d, bson.E{Key: "me", Value: v.Me})
	if v.IsPrimary {
		d = append(d, bson.E{Key: "electionId", Value: electionID(v.Term)})
	}
	op := replOpTime(v.Applied, v.Term, now)
	date := bson.NewDateTimeFromTime(now)
	d = append(d, bson.E{Key: "lastWrite", Value: bson.D{
		{Key: "opTime", Value: op},
		{Key: "lastWriteDate", Value: date},
		{Key: "majorityOpTime", Value: op},
		{Key: "majorityWriteDate", Value: date},
	}})
	return d
}
