package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// architectureDoc is the document whose package table must say what the
// import table above enforces.
const architectureDoc = "docs/ARCHITECTURE.md"

// cellPath matches one backticked package path in a table cell.
var cellPath = regexp.MustCompile("`([a-z0-9_./]+)`")

// docImportTable reads the package table of docs/ARCHITECTURE.md: the rows
// whose first cell is a backticked package path, and the backticked paths of
// their last cell (what the package may import).
func docImportTable(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatalf("read %s: %v", architectureDoc, err)
	}
	table := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) < 3 {
			continue
		}
		first := cellPath.FindStringSubmatch(cells[0])
		if first == nil {
			continue
		}
		var imports []string
		for _, m := range cellPath.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			imports = append(imports, m[1])
		}
		slices.Sort(imports)
		table[first[1]] = imports
	}
	return table
}

// Ensure that docs/ARCHITECTURE.md's package table and the import table
// this package enforces agree, so the document describes the code as it is.
func TestArchitectureDocMatchesImportTable(t *testing.T) {
	doc := docImportTable(t)
	for pkg, want := range allowed {
		got, ok := doc[pkg]
		if !ok {
			t.Errorf("%s has no row for %s (its imports: %v)", architectureDoc, pkg, want)
			continue
		}
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%s says %s may import %v; the import table says %v", architectureDoc, pkg, got, want)
		}
	}
	for pkg := range doc {
		if _, ok := allowed[pkg]; !ok {
			t.Errorf("%s has a row for %s, which the import table does not know", architectureDoc, pkg)
		}
	}
}
