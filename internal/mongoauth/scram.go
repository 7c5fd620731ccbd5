package mongoauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// ErrAuthenticationFailed is the failure of a conversation whose messages
// were well formed but whose user, credentials or proof were wrong.
var ErrAuthenticationFailed = errors.New("authentication failed")

// ProtocolError is a malformed SCRAM message.
type ProtocolError struct{ Reason string }

func (e *ProtocolError) Error() string { return e.Reason }

func protocolErr(reason string) error { return &ProtocolError{Reason: reason} }

// CredentialLookup returns the credential of a user for the conversation's
// mechanism, and whether there is one.
type CredentialLookup func(user string) (ScramCredential, bool)

// nonceLen is the number of random bytes of the server's part of the
// nonce.
const nonceLen = 24

// ServerConversation is the server side of one SCRAM authentication. It
// is not safe for concurrent use.
type ServerConversation struct {
	mech   Mechanism
	lookup CredentialLookup

	step        int
	user        string
	cred        ScramCredential
	gs2Header   string
	nonce       string
	clientFirst string // client-first-message-bare
	serverFirst string
	done        bool
}

// NewServerConversation starts a conversation for mechanism m whose users'
// credentials lookup returns.
func NewServerConversation(m Mechanism, lookup CredentialLookup) *ServerConversation {
	return &ServerConversation{mech: m, lookup: lookup}
}

// User is the user the client named in its first message.
func (c *ServerConversation) User() string { return c.user }

// Mechanism is the conversation's mechanism.
func (c *ServerConversation) Mechanism() Mechanism { return c.mech }

// Done reports whether the client is authenticated: the proof was checked
// and the server signature sent.
func (c *ServerConversation) Done() bool { return c.done }

// Step takes the client's next message and returns the server's answer.
// An error ends the conversation: a *ProtocolError for a malformed
// message, ErrAuthenticationFailed for an unknown user or a wrong proof.
func (c *ServerConversation) Step(msg []byte) ([]byte, error) {
	c.step++
	switch c.step {
	case 1:
		return c.first(string(msg))
	case 2:
		return c.final(string(msg))
	default:
		return nil, protocolErr("SCRAM conversation already finished")
	}
}

// ClientFirst is a parsed client-first-message.
type ClientFirst struct {
	GS2Header string // "n,," or "y,,", with the authzid if one was sent
	AuthzID   string
	User      string
	Nonce     string
	Bare      string // client-first-message-bare
}

// ParseClientFirst parses a client-first-message (RFC 5802 section 7).
// Channel binding (p=) and extensions (m=) are refused.
func ParseClientFirst(msg string) (ClientFirst, error) {
	var cf ClientFirst
	cb, rest, ok := strings.Cut(msg, ",")
	if !ok {
		return cf, protocolErr("Incorrect number of arguments for first SCRAM client message, got 1 expected at least 3")
	}
	switch {
	case cb == "n" || cb == "y":
	case strings.HasPrefix(cb, "p="):
		return cf, protocolErr("Server does not support channel binding")
	default:
		return cf, protocolErr("Incorrect SCRAM client message prefix: " + cb)
	}
	authz, bare, ok := strings.Cut(rest, ",")
	if !ok {
		return cf, protocolErr("Incorrect number of arguments for first SCRAM client message, got 2 expected at least 3")
	}
	if authz != "" {
		if !strings.HasPrefix(authz, "a=") {
			return cf, protocolErr("Incorrect SCRAM authzid: " + authz)
		}
		name, err := decodeSaslName(authz[2:])
		if err != nil {
			return cf, err
		}
		cf.AuthzID = name
	}
	cf.GS2Header = cb + "," + authz + ","
	cf.Bare = bare
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 {
		return cf, protocolErr("Incorrect number of arguments for first SCRAM client message, got " + strconv.Itoa(len(attrs)+2) + " expected at least 4")
	}
	if strings.HasPrefix(attrs[0], "m=") {
		return cf, protocolErr("SCRAM mandatory extensions are not supported")
	}
	if !strings.HasPrefix(attrs[0], "n=") {
		return cf, protocolErr("Invalid SCRAM user name: " + attrs[0])
	}
	user, err := decodeSaslName(attrs[0][2:])
	if err != nil {
		return cf, err
	}
	if user == "" {
		return cf, protocolErr("SCRAM user name is empty")
	}
	if cf.AuthzID != "" && cf.AuthzID != user {
		return cf, protocolErr("SCRAM user name " + user + " does not match authzid " + cf.AuthzID)
	}
	cf.User = user
	if !strings.HasPrefix(attrs[1], "r=") || len(attrs[1]) == 2 {
		return cf, protocolErr("Invalid SCRAM client nonce: " + attrs[1])
	}
	cf.Nonce = attrs[1][2:]
	if strings.ContainsAny(cf.Nonce, ",") || !printable(cf.Nonce) {
		return cf, protocolErr("Invalid SCRAM client nonce")
	}
	return cf, nil
}

// printable reports whether s holds only printable ASCII, as a nonce must.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// decodeSaslName undoes RFC 5802's escaping of ',' and '=' in names.
func decodeSaslName(s string) (string, error) {
	if !strings.Contains(s, "=") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "=2C"):
			b.WriteByte(',')
		case strings.HasPrefix(s[i:], "=3D"):
			b.WriteByte('=')
		default:
			return "", protocolErr("Invalid escape in SCRAM user name")
		}
		i += 2
	}
	return b.String(), nil
}

func (c *ServerConversation) first(msg string) ([]byte, error) {
	cf, err := ParseClientFirst(msg)
	if err != nil {
		return nil, err
	}
	c.user = cf.User
	cred, ok := c.lookup(cf.User)
	if !ok {
		return nil, ErrAuthenticationFailed
	}
	c.cred = cred
	c.gs2Header = cf.GS2Header
	c.clientFirst = cf.Bare
	buf := make([]byte, nonceLen)
	rand.Read(buf)
	c.nonce = cf.Nonce + base64.StdEncoding.EncodeToString(buf)
	c.serverFirst = "r=" + c.nonce + ",s=" + base64.StdEncoding.EncodeToString(cred.Salt) +
		",i=" + strconv.Itoa(cred.IterationCount)
	return []byte(c.serverFirst), nil
}

// ClientFinal is a parsed client-final-message.
type ClientFinal struct {
	ChannelBinding string // the c= value, base64
	Nonce          string
	Proof          []byte
	WithoutProof   string // client-final-message-without-proof
}

// ParseClientFinal parses a client-final-message.
func ParseClientFinal(msg string) (ClientFinal, error) {
	var cf ClientFinal
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return cf, protocolErr("Incorrect SCRAM client final message: no proof")
	}
	cf.WithoutProof = msg[:i]
	proof, err := base64.StdEncoding.DecodeString(msg[i+3:])
	if err != nil {
		return cf, protocolErr("Incorrect SCRAM client proof encoding")
	}
	cf.Proof = proof
	attrs := strings.Split(cf.WithoutProof, ",")
	if len(attrs) < 2 {
		return cf, protocolErr("Incorrect number of arguments for final SCRAM client message, got " + strconv.Itoa(len(attrs)+1) + " expected at least 3")
	}
	if !strings.HasPrefix(attrs[0], "c=") {
		return cf, protocolErr("Incorrect SCRAM channel binding: " + attrs[0])
	}
	cf.ChannelBinding = attrs[0][2:]
	if !strings.HasPrefix(attrs[1], "r=") {
		return cf, protocolErr("Incorrect SCRAM client nonce: " + attrs[1])
	}
	cf.Nonce = attrs[1][2:]
	return cf, nil
}

func (c *ServerConversation) final(msg string) ([]byte, error) {
	cf, err := ParseClientFinal(msg)
	if err != nil {
		return nil, err
	}
	if cf.ChannelBinding != base64.StdEncoding.EncodeToString([]byte(c.gs2Header)) {
		return nil, protocolErr("Unmatched SCRAM channel binding")
	}
	if subtle.ConstantTimeCompare([]byte(cf.Nonce), []byte(c.nonce)) != 1 {
		return nil, protocolErr("Unmatched SCRAM nonce received from client in second step")
	}
	h := c.mech.hash()
	authMessage := c.clientFirst + "," + c.serverFirst + "," + cf.WithoutProof
	clientSignature := hmacOf(h, c.cred.StoredKey, authMessage)
	if len(cf.Proof) != len(clientSignature) {
		return nil, ErrAuthenticationFailed
	}
	clientKey := make([]byte, len(cf.Proof))
	subtle.XORBytes(clientKey, cf.Proof, clientSignature)
	if !hmac.Equal(hashOf(h, clientKey), c.cred.StoredKey) {
		return nil, ErrAuthenticationFailed
	}
	c.done = true
	serverSignature := hmacOf(h, c.cred.ServerKey, authMessage)
	return []byte("v=" + base64.StdEncoding.EncodeToString(serverSignature)), nil
}
