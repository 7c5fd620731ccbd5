package mongo

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// saslState is a connection's SASL conversation in progress.
type saslState struct {
	conv *mongoauth.ServerConversation
	db   string
	// skipEmptyExchange: the reply to the client's final message says
	// done, instead of waiting for an empty message.
	skipEmptyExchange bool
	// proven is set once the proof was checked and the server signature
	// sent: the next (empty) message completes the authentication.
	proven      bool
	speculative bool
}

// saslConversationID is the conversationId of every SASL reply: a
// connection has at most one conversation, as in MongoDB.
const saslConversationID = int32(1)

var errAuthFailed = errorf(mongoerr.AuthenticationFailed, "Authentication failed.")

// saslStartArgs are saslStart's fields.
type saslStartArgs struct {
	mechanism         string
	payload           []byte
	skipEmptyExchange bool
}

// parseSaslStart parses saslStart's fields (and those of hello's
// speculativeAuthenticate, which also names its database in db).
func parseSaslStart(cmd bson.Raw, speculative bool) (saslStartArgs, string, error) {
	var a saslStartArgs
	var db string
	mechSeen := false
	err := eachElement(cmd, func(el bson.RawElement) error {
		v := el.Value()
		switch el.Key() {
		case "mechanism":
			s, ok := v.StringValueOK()
			if !ok {
				return typeMismatch("saslStart", "mechanism", v.Type, "string")
			}
			a.mechanism, mechSeen = s, true
		case "payload":
			p, err := saslPayload("saslStart", v)
			if err != nil {
				return err
			}
			a.payload = p
		case "options":
			if d, ok := v.DocumentOK(); ok {
				if o, err := d.LookupErr("skipEmptyExchange"); err == nil {
					a.skipEmptyExchange = truthy(o)
				}
			}
		case "db":
			// hello's speculativeAuthenticate names its database.
			if !speculative {
				return unknownField("saslStart", el.Key())
			}
			db, _ = v.StringValueOK()
		case "saslStart", "autoAuthorize":
		default:
			if !genericArgs[el.Key()] {
				return unknownField("saslStart", el.Key())
			}
		}
		return nil
	})
	if err != nil {
		return a, "", err
	}
	if !mechSeen {
		return a, "", missingField("saslStart", "mechanism")
	}
	return a, db, nil
}

// saslPayload reads a payload: BinData, or a string as older clients
// send it.
func saslPayload(cmd string, v bson.RawValue) ([]byte, error) {
	switch v.Type {
	case bson.TypeBinary:
		_, b := v.Binary()
		return b, nil
	case bson.TypeString:
		return []byte(v.StringValue()), nil
	}
	return nil, typeMismatch(cmd, "payload", v.Type, "binData")
}

// saslStart starts a conversation on database db and takes its first
// message. A failure is logged, counted and delayed, and answered
// AuthenticationFailed.
func (c *conn) saslStart(ctx context.Context, db string, a saslStartArgs, speculative bool) (bson.D, error) {
	c.sasl = nil
	mech, ok := mongoauth.ParseMechanism(a.mechanism)
	if !ok {
		return nil, errorf(mongoerr.MechanismUnavailable, "Received authentication for mechanism %s which is not enabled", a.mechanism)
	}
	counters := c.s.metrics.authMechs[mech]
	if speculative {
		counters.speculativeReceived.Add(1)
	} else {
		counters.received.Add(1)
	}
	var lookupErr error
	conv := mongoauth.NewServerConversation(mech, func(user string) (mongoauth.ScramCredential, bool) {
		u, err := c.s.findUser(ctx, userName{user, db})
		if err != nil {
			lookupErr = err
			return mongoauth.ScramCredential{}, false
		}
		if u == nil {
			return mongoauth.ScramCredential{}, false
		}
		cred, ok := u.creds[mech]
		return cred, ok
	})
	out, err := conv.Step(a.payload)
	if lookupErr != nil {
		return nil, lookupErr
	}
	if err != nil {
		return nil, c.authFailed(ctx, mech, db, conv.User(), err)
	}
	c.sasl = &saslState{conv: conv, db: db, skipEmptyExchange: a.skipEmptyExchange, speculative: speculative}
	return saslReply(false, out), nil
}

// saslContinue takes the client's next message of the conversation.
func (c *conn) saslContinue(ctx context.Context, payload []byte) (bson.D, error) {
	st := c.sasl
	if st == nil {
		return nil, errorf(mongoerr.ProtocolError, "No SASL session state found")
	}
	mech := st.conv.Mechanism()
	if st.proven {
		c.sasl = nil
		if len(payload) != 0 {
			return nil, c.authFailed(ctx, mech, st.db, st.conv.User(), errors.New("unexpected message after the server signature"))
		}
		if err := c.authSucceeded(st); err != nil {
			return nil, err
		}
		return saslReply(true, nil), nil
	}
	out, err := st.conv.Step(payload)
	if err != nil {
		c.sasl = nil
		return nil, c.authFailed(ctx, mech, st.db, st.conv.User(), err)
	}
	if !st.conv.Done() {
		return saslReply(false, out), nil
	}
	if st.skipEmptyExchange {
		c.sasl = nil
		if err := c.authSucceeded(st); err != nil {
			return nil, err
		}
		return saslReply(true, out), nil
	}
	st.proven = true
	return saslReply(false, out), nil
}

func saslReply(done bool, payload []byte) bson.D {
	if payload == nil {
		payload = []byte{}
	}
	return bson.D{
		{Key: "conversationId", Value: saslConversationID},
		{Key: "done", Value: done},
		{Key: "payload", Value: bson.Binary{Subtype: bson.TypeBinaryGeneric, Data: payload}},
	}
}

// authSucceeded makes the conversation's user the connection's. A
// connection holds one user: authenticating again as the same user is
// allowed, as another is MongoDB's error.
func (c *conn) authSucceeded(st *saslState) error {
	return c.loggedIn(userName{st.conv.User(), st.db}, st.conv.Mechanism(), st.speculative)
}

// loggedIn makes name the connection's user once mechanism authenticated
// it, counting the success.
func (c *conn) loggedIn(name userName, mech mongoauth.Mechanism, speculative bool) error {
	if prev := c.user; prev != nil && prev.name != name {
		if prev.name.db == name.db {
			return errorf(mongoerr.Location5626701, "Each client connection may only be authenticated once. Previously authenticated as: %s", prev.name)
		}
		return errorf(mongoerr.Location5626702, "Client has attempted to authenticate on multiple databases.Already authenticated as: %s", prev.name)
	}
	counters := c.s.metrics.authMechs[mech]
	if speculative {
		counters.speculativeSuccessful.Add(1)
	} else {
		counters.successful.Add(1)
	}
	c.s.throttle.Succeeded(hostOf(c.remote))
	// The privileges are resolved before the next command.
	c.user = &connUser{name: name, gen: c.s.authGen.Load() - 1}
	c.publishUser()
	c.log.Info("Successfully authenticated", "user", name.user, "db", name.db, "mechanism", string(mech), "client", c.remote)
	return nil
}

// authFailed logs and counts a failed authentication and waits the
// throttle's delay for the client's address before it is answered.
func (c *conn) authFailed(ctx context.Context, mech mongoauth.Mechanism, db, user string, cause error) error {
	delay := c.s.throttle.Failed(hostOf(c.remote))
	c.log.Info("Authentication failed", "mechanism", string(mech), "user", user, "db", db,
		"client", c.remote, "error", cause.Error(), "delay", delay.String())
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	return errAuthFailed
}
