package mongoerr

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Ensure that codes.go is what go generate makes of error_codes.yml and
// location_codes.yml, so that an edited input or a hand edit of the output
// cannot go unnoticed.
func TestCodesGoIsGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "codes.go")
	cmd := exec.Command("go", "run", "./gen", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("codes.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("codes.go differs from the generator's output; run go generate ./internal/docdb/mongoerr/")
	}
}

// Ensure that a code's name is the codeName MongoDB replies with: the
// error_codes.yml name, or Location<code> for an assert location or any code
// the file does not name.
func TestCodeName(t *testing.T) {
	for _, tc := range []struct {
		code Code
		want string
	}{
		{BadValue, "BadValue"},
		{Code(2), "BadValue"},
		{NamespaceNotFound, "NamespaceNotFound"},
		{Code(11000), "DuplicateKey"},
		{ClientMetadataCannotBeMutated, "ClientMetadataCannotBeMutated"},
		{Code(40415), "IDLUnknownField"},
		{OK, "OK"},
		{Location15974, "Location15974"},
		{Code(5739101), "Location5739101"},
		{Code(99999999), "Location99999999"},
	} {
		if got := tc.code.Name(); got != tc.want {
			t.Errorf("Code(%d).Name() = %q, want %q", int32(tc.code), got, tc.want)
		}
		if got := tc.code.String(); got != tc.want {
			t.Errorf("Code(%d).String() = %q, want %q", int32(tc.code), got, tc.want)
		}
	}
	if int32(DuplicateKey) != 11000 || int32(IDLUnknownField) != 40415 || int32(Location15974) != 15974 {
		t.Error("generated constants do not have MongoDB's values")
	}
}
