package integration_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/internal/tlsconf/tlstest"
)

// x509Subject is the subject of tlstest's client certificate as MongoDB
// names its user.
const x509Subject = "CN=mayfly-test-client,OU=clients"

func connectURI(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

func wantAuthFailed(t *testing.T, what string, err error) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 18 || ce.Name != "AuthenticationFailed" {
		t.Fatalf("%s: error = %v, want AuthenticationFailed (18)", what, err)
	}
}

// Ensure that MONGODB-X509 authenticates the Go driver by its client
// certificate (speculatively in hello, and through authenticate) as the
// $external user of the certificate's subject, with --tls-client-auth
// optional and required; and that a client without a certificate, a user
// field naming someone else, an unknown subject and a plain-text
// connection are refused with AuthenticationFailed.
func TestMongoX509(t *testing.T) {
	pki := tlstest.New(t)
	certKey := combinedClientPEM(t, pki)
	for _, mode := range []string{"optional", "required"} {
		t.Run(mode, func(t *testing.T) {
			s := startTLS(t, pki, "--auth", "--resp-config", "requirepass=redis-secret", "--tls-client-auth", mode, "--mongo-plain-addr", "127.0.0.1:0")
			ctx := t.Context()
			base := mongoTLSURI(s, pki, certKey)
			anon := connectURI(t, base)

			// A certificate whose user does not exist yet.
			err := anon.Database("$external").RunCommand(ctx, bson.D{{Key: "authenticate", Value: 1},
				{Key: "mechanism", Value: "MONGODB-X509"}}).Err()
			wantAuthFailed(t, "unknown subject", err)

			if err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "admin"}, {Key: "pwd", Value: "rootpw"},
				{Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
				t.Fatal(err)
			}
			root := connectURI(t, strings.Replace(mongoTLSURI(s, pki, certKey), "mongodb://", "mongodb://admin:rootpw@", 1)+"&authSource=admin")
			err = root.Database("$external").RunCommand(ctx, bson.D{{Key: "createUser", Value: x509Subject}, {Key: "pwd", Value: "x"},
				{Key: "roles", Value: bson.A{}}}).Err()
			var ce mongo.CommandError
			if !errors.As(err, &ce) || ce.Code != 2 {
				t.Fatalf("createUser in $external with a pwd: %v, want BadValue", err)
			}
			if err := root.Database("$external").RunCommand(ctx, bson.D{{Key: "createUser", Value: x509Subject},
				{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "app"}}}}}).Err(); err != nil {
				t.Fatal(err)
			}
			var info struct {
				Users []struct {
					User        string   `bson:"user"`
					Mechanisms  []string `bson:"mechanisms"`
					Credentials bson.M   `bson:"credentials"`
				} `bson:"users"`
			}
			if err := root.Database("$external").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: x509Subject},
				{Key: "showCredentials", Value: true}}).Decode(&info); err != nil {
				t.Fatal(err)
			}
			if len(info.Users) != 1 || len(info.Users[0].Mechanisms) != 1 || info.Users[0].Mechanisms[0] != "external" ||
				info.Users[0].Credentials["external"] != true {
				t.Fatalf("usersInfo = %+v", info)
			}

			// The driver: speculative authentication in hello.
			app := connectURI(t, base+"&authMechanism=MONGODB-X509")
			if _, err := app.Database("app").Collection("items").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
				t.Fatalf("insert as the certificate's user: %v", err)
			}
			_, err = app.Database("other").Collection("items").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
			wantUnauthorized(t, err, "not authorized on other")
			var st struct {
				AuthInfo struct {
					AuthenticatedUsers []struct{ User, DB string } `bson:"authenticatedUsers"`
				} `bson:"authInfo"`
			}
			if err := app.Database("admin").RunCommand(ctx, bson.D{{Key: "connectionStatus", Value: 1}}).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if u := st.AuthInfo.AuthenticatedUsers; len(u) != 1 || u[0].User != x509Subject || u[0].DB != "$external" {
				t.Fatalf("authenticatedUsers = %+v", u)
			}

			// authenticate itself, with and without the user field.
			for _, user := range []bson.D{{}, {{Key: "user", Value: x509Subject}}} {
				cl := connectURI(t, base)
				var reply bson.M
				cmd := append(bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}, user...)
				if err := cl.Database("$external").RunCommand(ctx, cmd).Decode(&reply); err != nil {
					t.Fatalf("authenticate %v: %v", user, err)
				}
				if reply["user"] != x509Subject || reply["dbname"] != "$external" {
					t.Fatalf("authenticate reply = %v", reply)
				}
			}
			other := connectURI(t, base)
			err = other.Database("$external").RunCommand(ctx, bson.D{{Key: "authenticate", Value: 1},
				{Key: "mechanism", Value: "MONGODB-X509"}, {Key: "user", Value: "CN=someone else"}}).Err()
			wantAuthFailed(t, "another user", err)
			err = other.Database("admin").RunCommand(ctx, bson.D{{Key: "authenticate", Value: 1},
				{Key: "mechanism", Value: "MONGODB-X509"}}).Err()
			if !errors.As(err, &ce) || ce.Code != 17 {
				t.Fatalf("authenticate on admin: %v, want ProtocolError (17)", err)
			}

			// No certificate, or no TLS at all.
			if mode == "optional" {
				err := connectURI(t, mongoTLSURI(s, pki, "")+"&authMechanism=MONGODB-X509").Ping(ctx, nil)
				wantAuthFailed(t, "no certificate", errors.Unwrap(err))
			}
			plain := connectURI(t, "mongodb://"+s.MongoPlainAddr+"/?directConnection=true")
			err = plain.Database("$external").RunCommand(ctx, bson.D{{Key: "authenticate", Value: 1},
				{Key: "mechanism", Value: "MONGODB-X509"}, {Key: "user", Value: x509Subject}}).Err()
			wantAuthFailed(t, "plain text", err)

			var ss struct {
				Security struct {
					Authentication struct {
						Mechanisms map[string]struct {
							Speculative  struct{ Successful int64 } `bson:"speculativeAuthenticate"`
							Authenticate struct{ Successful int64 } `bson:"authenticate"`
						} `bson:"mechanisms"`
					} `bson:"authentication"`
				} `bson:"security"`
			}
			if err := root.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&ss); err != nil {
				t.Fatal(err)
			}
			x := ss.Security.Authentication.Mechanisms["MONGODB-X509"]
			if x.Speculative.Successful < 1 || x.Authenticate.Successful < 2 {
				t.Errorf("serverStatus MONGODB-X509 counters = %+v", x)
			}
		})
	}
}
