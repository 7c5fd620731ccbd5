package mongo

import (
	"context"
	"crypto/tls"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// authenticateArgs are authenticate's fields.
type authenticateArgs struct {
	mechanism string
	user      string
	userSeen  bool
}

func parseAuthenticate(cmd bson.Raw) authenticateArgs {
	a := authenticateArgs{mechanism: "<none>"}
	if v, err := cmd.LookupErr("mechanism"); err == nil {
		if s, ok := v.StringValueOK(); ok {
			a.mechanism = s
		}
	}
	if v, err := cmd.LookupErr("user"); err == nil {
		a.user, a.userSeen = v.StringValueOK()
	}
	return a
}

// msgAuthenticate answers authenticate, which serves MONGODB-X509 only: a
// TLS client whose certificate was verified authenticates as the user of
// $external named by the certificate's subject. The reply names the
// database and the user.
func msgAuthenticate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	return c.authenticateX509(ctx, req.db, parseAuthenticate(req.cmd), false)
}

// authenticateX509 runs authenticate (or hello's speculativeAuthenticate
// with it) on database db. The client sees AuthenticationFailed for every
// failure, ProtocolError for a database other than $external, and the
// cause is logged.
func (c *conn) authenticateX509(ctx context.Context, db string, a authenticateArgs, speculative bool) (bson.D, error) {
	if a.mechanism != string(mongoauth.MongoDBX509) {
		c.log.Info("Authentication failed", "mechanism", a.mechanism, "user", a.user, "db", db, "client", c.remote,
			"error", "Unsupported mechanism: "+a.mechanism)
		return nil, errAuthFailed
	}
	counters := c.s.metrics.authMechs[mongoauth.MongoDBX509]
	if speculative {
		counters.speculativeReceived.Add(1)
	} else {
		counters.received.Add(1)
	}
	subject, err := c.peerSubject()
	if err != nil {
		return nil, c.authFailed(ctx, mongoauth.MongoDBX509, db, a.user, err)
	}
	if db != mongoauth.ExternalDB {
		return nil, errorf(mongoerr.ProtocolError, "X.509 authentication must always use the $external database.")
	}
	user := a.user
	if !a.userSeen {
		user = subject
	}
	if user != subject {
		return nil, c.authFailed(ctx, mongoauth.MongoDBX509, db, user, errors.New("there is no x.509 client certificate matching the user"))
	}
	name := userName{user, db}
	u, err := c.s.findUser(ctx, name)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, c.authFailed(ctx, mongoauth.MongoDBX509, db, user, errors.New("could not find user \""+user+"\" for db \""+db+"\""))
	}
	if err := c.loggedIn(name, mongoauth.MongoDBX509, speculative); err != nil {
		return nil, err
	}
	return bson.D{{Key: "dbname", Value: db}, {Key: "user", Value: user}}, nil
}

// peerSubject is the subject of the client's verified certificate.
func (c *conn) peerSubject() (string, error) {
	tc, ok := c.nc.(*tls.Conn)
	if !ok {
		return "", errors.New("no verified subject name available from client: the connection does not use TLS")
	}
	st := tc.ConnectionState()
	if len(st.VerifiedChains) == 0 || len(st.PeerCertificates) == 0 {
		return "", errors.New("no verified subject name available from client")
	}
	return mongoauth.SubjectName(st.PeerCertificates[0])
}
