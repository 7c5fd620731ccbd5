package mongoauth

import (
	"errors"
	"testing"
	"time"

	"github.com/xdg-go/scram"
)

// converse runs a SCRAM conversation between the xdg-go client (the Go
// driver's) and a ServerConversation.
func converse(t *testing.T, m Mechanism, stored ScramCredential, user, password string) error {
	t.Helper()
	hash := scram.SHA256
	secret := password
	if m == ScramSHA1 {
		hash = scram.SHA1
		secret, _ = Digest(ScramSHA1, user, password)
	}
	client, err := hash.NewClient(user, secret, "")
	if err != nil {
		t.Fatal(err)
	}
	cc := client.NewConversation()
	sc := NewServerConversation(m, func(u string) (ScramCredential, bool) {
		return stored, u == user
	})
	msg, err := cc.Step("")
	if err != nil {
		t.Fatal(err)
	}
	for !sc.Done() {
		reply, err := sc.Step([]byte(msg))
		if err != nil {
			return err
		}
		msg, err = cc.Step(string(reply))
		if err != nil {
			t.Fatalf("client refused the server's answer: %v", err)
		}
	}
	if !cc.Valid() {
		t.Fatal("client did not validate the server signature")
	}
	return nil
}

func TestScramConversation(t *testing.T) {
	for _, m := range Mechanisms {
		t.Run(string(m), func(t *testing.T) {
			cred, err := NewScramCredential(m, "alice", "s3cr\u00e9t")
			if err != nil {
				t.Fatal(err)
			}
			if cred.IterationCount != m.Iterations() || len(cred.Salt) != m.saltLen() {
				t.Fatalf("credential %+v", cred)
			}
			if err := converse(t, m, cred, "alice", "s3cr\u00e9t"); err != nil {
				t.Fatalf("right password: %v", err)
			}
			if err := converse(t, m, cred, "alice", "wrong"); !errors.Is(err, ErrAuthenticationFailed) {
				t.Fatalf("wrong password: %v, want ErrAuthenticationFailed", err)
			}
		})
	}
}

// TestSHA256SASLprep: RFC 4013 maps a non-ASCII space to a space and
// removes soft hyphens, so both spellings of a password authenticate.
func TestSHA256SASLprep(t *testing.T) {
	cred, err := NewScramCredential(ScramSHA256, "u", "I\u00adX\u00a0y")
	if err != nil {
		t.Fatal(err)
	}
	if err := converse(t, ScramSHA256, cred, "u", "IX y"); err != nil {
		t.Fatal(err)
	}
	if _, err := NewScramCredential(ScramSHA256, "u", "a\u0007b"); err == nil {
		t.Fatal("a password with a control character was prepared")
	}
}

// TestSHA1Digest: MongoDB's passwordDigestor for SCRAM-SHA-1.
func TestSHA1Digest(t *testing.T) {
	got, _ := Digest(ScramSHA1, "user", "pencil")
	// md5("user:mongo:pencil")
	if got != "1c33006ec1ffd90f9cadcbcc0e118200" {
		t.Fatalf("digest %s", got)
	}
}

func TestParseClientFirst(t *testing.T) {
	cf, err := ParseClientFirst("n,,n=a=2Cb=3Dc,r=abc")
	if err != nil || cf.User != "a,b=c" || cf.Nonce != "abc" || cf.GS2Header != "n,," || cf.Bare != "n=a=2Cb=3Dc,r=abc" {
		t.Fatalf("%+v %v", cf, err)
	}
	for _, bad := range []string{"", "n", "n,,", "x,,n=a,r=b", "p=tls,,n=a,r=b", "n,,n=,r=b", "n,,n=a", "n,,n=a,r=",
		"n,,m=x,n=a,r=b", "n,,n=a=2X,r=b", "n,a=b,n=a,r=c", "n,,n=a,r=b\x01"} {
		if _, err := ParseClientFirst(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestThrottle(t *testing.T) {
	now := time.Unix(0, 0)
	th := NewThrottle(func() time.Time { return now })
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
	for i, w := range want {
		if d := th.Failed("10.0.0.1"); d != w {
			t.Fatalf("failure %d: delay %v, want %v", i+1, d, w)
		}
	}
	for range 20 {
		th.Failed("10.0.0.1")
	}
	if d := th.Failed("10.0.0.1"); d != MaxFailureDelay {
		t.Fatalf("delay %v, want the bound", d)
	}
	if d := th.Failed("10.0.0.2"); d != 0 {
		t.Fatalf("another address delayed %v", d)
	}
	th.Succeeded("10.0.0.1")
	if d := th.Failed("10.0.0.1"); d != 0 {
		t.Fatalf("after a success: %v", d)
	}
	th.Failed("10.0.0.1")
	now = now.Add(2 * time.Minute)
	if d := th.Failed("10.0.0.1"); d != 0 {
		t.Fatalf("after a quiet minute: %v", d)
	}
}

// FuzzSaslPayload feeds arbitrary client messages to both steps of a
// conversation: nothing panics, and only a real proof authenticates.
func FuzzSaslPayload(f *testing.F) {
	f.Add([]byte("n,,n=alice,r=rOprNGfwEbeRWgbNEkqO"), []byte("c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	f.Add([]byte("y,a=alice,n=alice,r=x"), []byte("c=eSxhPWFsaWNlLA==,r=x,p="))
	f.Add([]byte("n,,n=a=3D,r=1"), []byte(",p=,p=AAAA"))
	cred, err := DeriveScramCredential(ScramSHA256, "alice", "pw", []byte("0123456789abcdef"), 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, final []byte) {
		sc := NewServerConversation(ScramSHA256, func(string) (ScramCredential, bool) { return cred, true })
		if _, err := sc.Step(first); err != nil {
			return
		}
		if _, err := sc.Step(final); err == nil && sc.Done() {
			t.Fatalf("authenticated without the proof: %q %q", first, final)
		}
	})
}
