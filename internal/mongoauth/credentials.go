package mongoauth

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/xdg-go/stringprep"
)

// Mechanism is a SASL mechanism.
type Mechanism string

// The SCRAM mechanisms, as MongoDB names them.
const (
	ScramSHA1   Mechanism = "SCRAM-SHA-1"
	ScramSHA256 Mechanism = "SCRAM-SHA-256"
)

// Mechanisms are the mechanisms a new user gets by default, in MongoDB's
// order.
var Mechanisms = []Mechanism{ScramSHA1, ScramSHA256}

// ParseMechanism returns the SCRAM mechanism of a name.
func ParseMechanism(name string) (Mechanism, bool) {
	switch Mechanism(name) {
	case ScramSHA1, ScramSHA256:
		return Mechanism(name), true
	}
	return "", false
}

// MongoDB's default iteration counts (scramIterationCount and
// scramSHA256IterationCount).
const (
	IterationsSHA1   = 10000
	IterationsSHA256 = 15000
)

// saltLen is the length of a new salt: the hash's size, as in MongoDB.
func (m Mechanism) saltLen() int {
	if m == ScramSHA1 {
		return sha1.Size
	}
	return sha256.Size
}

func (m Mechanism) hash() func() hash.Hash {
	if m == ScramSHA1 {
		return sha1.New
	}
	return sha256.New
}

// Iterations is the mechanism's iteration count for new credentials.
func (m Mechanism) Iterations() int {
	if m == ScramSHA1 {
		return IterationsSHA1
	}
	return IterationsSHA256
}

// ScramCredential is what is kept of a password for one mechanism.
type ScramCredential struct {
	IterationCount int
	Salt           []byte
	StoredKey      []byte
	ServerKey      []byte
}

// NewScramCredential derives a credential for user and password with a
// new random salt and the mechanism's default iteration count.
func NewScramCredential(m Mechanism, user, password string) (ScramCredential, error) {
	salt := make([]byte, m.saltLen())
	rand.Read(salt)
	return DeriveScramCredential(m, user, password, salt, m.Iterations())
}

// DeriveScramCredential derives a credential from its salt and iteration
// count: the password is first digested as the mechanism says (MD5 of
// "user:mongo:password" in hex for SCRAM-SHA-1, SASLprep for
// SCRAM-SHA-256).
func DeriveScramCredential(m Mechanism, user, password string, salt []byte, iterations int) (ScramCredential, error) {
	secret, err := Digest(m, user, password)
	if err != nil {
		return ScramCredential{}, err
	}
	h := m.hash()
	salted, err := pbkdf2.Key(h, secret, salt, iterations, h().Size())
	if err != nil {
		return ScramCredential{}, fmt.Errorf("derive %s key: %w", m, err)
	}
	clientKey := hmacOf(h, salted, "Client Key")
	storedKey := hashOf(h, clientKey)
	return ScramCredential{
		IterationCount: iterations,
		Salt:           salt,
		StoredKey:      storedKey,
		ServerKey:      hmacOf(h, salted, "Server Key"),
	}, nil
}

// Digest returns the secret a mechanism salts: for SCRAM-SHA-1 MongoDB's
// password digest, hex(MD5(user + ":mongo:" + password)); for
// SCRAM-SHA-256 the SASLprep of the password.
func Digest(m Mechanism, user, password string) (string, error) {
	if m == ScramSHA1 {
		sum := md5.Sum([]byte(user + ":mongo:" + password))
		return hex.EncodeToString(sum[:]), nil
	}
	p, err := stringprep.SASLprep.Prepare(password)
	if err != nil {
		return "", fmt.Errorf("SASLprep of the password: %w", err)
	}
	return p, nil
}

func hmacOf(h func() hash.Hash, key []byte, msg string) []byte {
	mac := hmac.New(h, key)
	mac.Write([]byte(msg))
	return mac.Sum(nil)
}

func hashOf(h func() hash.Hash, b []byte) []byte {
	d := h()
	d.Write(b)
	return d.Sum(nil)
}
