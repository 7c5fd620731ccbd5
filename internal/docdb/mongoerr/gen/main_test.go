package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeInputs(t *testing.T, codes, locations string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "error_codes.yml"), []byte(codes), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "location_codes.yml"), []byte(locations), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Ensure that the inputs are read in code order, comments skipped, and
// assert locations named Location<code>.
func TestReadCodes(t *testing.T) {
	dir := writeInputs(t,
		"# header\nerror_codes:\n  - {code: 2, name: BadValue}\n\n  - {code: 1, name: InternalError}\n",
		"location_codes:\n  # a comment\n  - 15974\n")
	codes, err := readCodes(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []code{{1, "InternalError", false}, {2, "BadValue", false}, {15974, "Location15974", true}}
	if len(codes) != len(want) {
		t.Fatalf("got %v, want %v", codes, want)
	}
	for i := range want {
		if codes[i] != want[i] {
			t.Errorf("code %d: got %v, want %v", i, codes[i], want[i])
		}
	}
}

// Ensure that a code or a name defined twice, or a line of another form,
// is an error rather than a silently wrong table.
func TestReadCodesRejects(t *testing.T) {
	for _, tc := range []struct {
		name, codes, locations, want string
	}{
		{"code twice", "error_codes:\n  - {code: 2, name: BadValue}\n  - {code: 2, name: Other}\n", "location_codes:\n", "defined twice"},
		{"location that is named", "error_codes:\n  - {code: 2, name: BadValue}\n", "location_codes:\n  - 2\n", "defined twice"},
		{"name twice", "error_codes:\n  - {code: 2, name: BadValue}\n  - {code: 3, name: BadValue}\n", "location_codes:\n", "defined twice"},
		{"other form", "error_codes:\n  - {code: 2, name: BadValue, categories: [X]}\n", "location_codes:\n", "want"},
		{"no key", "  - {code: 2, name: BadValue}\n", "location_codes:\n", "want"},
	} {
		_, err := readCodes(writeInputs(t, tc.codes, tc.locations))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// Ensure that the output starts with the generated-code line tools look for
// and names every code.
func TestRender(t *testing.T) {
	src, err := render([]code{{2, "BadValue", false}, {15974, "Location15974", true}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if !strings.HasPrefix(s, "// Code generated ") || !strings.Contains(strings.SplitN(s, "\n", 2)[0], "DO NOT EDIT.") {
		t.Errorf("first line is not a generated-code line: %q", strings.SplitN(s, "\n", 2)[0])
	}
	for _, want := range []string{"BadValue      Code = 2", "Location15974 Code = 15974", "BadValue: \"BadValue\","} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Location15974: ") {
		t.Error("an assert location is in the names table; Name derives its text")
	}
}
