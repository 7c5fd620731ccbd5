package lint

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mayfly/mayfly/"

// allowed is the architecture's import table (docs/ARCHITECTURE.md): for
// each package (a path below the module; sub-packages inherit their
// parent's row), the internal packages its non-test files may import. internal/invariants may be imported by all.
var allowed = map[string][]string{
	"cmd/mayfly":        {"internal/server", "internal/admin", "internal/bench", "internal/tlsconf"},
	"internal/bench":    {},
	"internal/storage":  {"internal/lowprio"},
	"internal/lowprio":  {},
	"internal/replica":  {"internal/storage"},
	"internal/keycodec": {},
	"internal/expiry":   {"internal/storage"},
	"internal/docdb":    {"internal/docdb", "internal/expiry", "internal/storage", "internal/keycodec"},
	// The catalog knows collections and indexes, never policies, plans or
	// the engine.
	"internal/docdb/catalog": {"internal/docdb/match", "internal/docdb/aggregate", "internal/docdb/collation", "internal/docdb/mongoerr", "internal/storage", "internal/keycodec"},
	"internal/docdb/match":   {"internal/docdb/query", "internal/docdb/aggregate", "internal/docdb/collation"},
	// Collation compares strings; it knows nothing of documents' storage.
	"internal/docdb/collation": {"internal/docdb/mongoerr"},
	"internal/docdb/stored":    {"internal/docdb/catalog", "internal/docdb/mongoerr"},
	"internal/docdb/session":   {},
	"internal/docdb/change":    {"internal/docdb/catalog", "internal/docdb/stored", "internal/storage"},
	// The change log follows writes as a change hook; it never plans or
	// reads collections.
	"internal/docdb/events": {"internal/docdb/catalog", "internal/docdb/change", "internal/docdb/stored", "internal/storage"},
	// Policies see collections through the catalog and follow writes as a
	// change hook; they never plan queries.
	"internal/docdb/policy": {"internal/docdb/catalog", "internal/docdb/change", "internal/docdb/stored", "internal/expiry", "internal/storage"},
	// The time-series rules know options, buckets and measurements, never
	// storage.
	"internal/docdb/timeseries": {"internal/docdb/mongoerr"},
	// The planner reads the catalog and stored documents; it never writes.
	"internal/docdb/plan": {"internal/docdb/catalog", "internal/docdb/stored", "internal/docdb/match", "internal/docdb/collation", "internal/docdb/query", "internal/docdb/aggregate", "internal/docdb/mongoerr", "internal/storage", "internal/keycodec"},
	"internal/glob":       {},
	"internal/geo":        {},
	"internal/kv":         {"internal/expiry", "internal/storage", "internal/glob", "internal/hll"},
	"internal/hll":        {},
	"internal/acl":        {"internal/glob"},
	"internal/wire/mongo": {"internal/docdb", "internal/mongoauth"},
	"internal/mongoauth":  {},
	"internal/wire/resp":  {"internal/kv", "internal/glob", "internal/script", "internal/geo", "internal/rdb", "internal/acl"},
	"internal/script":     {"internal/rdb"},
	"internal/rdb":        {},
	"internal/admin":      {"internal/docdb", "internal/kv", "internal/expiry"},
	"internal/server":     {"internal"},
	"internal/tlsconf":    {},
	"internal/lint":       {},
	"internal/invariants": {},
	"integration":         {"integration"},
}

// exclusive names third-party packages that only some packages may import
// (in non-test files): Pebble stays behind storage, BSON in the document
// side, Lua in the scripting engine.
var exclusive = map[string][]string{
	"github.com/cockroachdb/pebble":       {"internal/storage"},
	"go.mongodb.org/mongo-driver/v2/bson": {"internal/docdb", "internal/wire/mongo", "internal/keycodec", "internal/bench", "internal/server"},
	"github.com/yuin/gopher-lua":          {"internal/script"},
}

// row returns the table row governing pkg: the longest key that is pkg or
// one of its parents.
func row(table map[string][]string, pkg string) (string, bool) {
	best := ""
	for k := range table {
		if (pkg == k || strings.HasPrefix(pkg, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	return best, best != ""
}

func within(pkg string, prefixes []string) bool {
	for _, p := range prefixes {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// Ensure that every package imports only what the architecture lets it,
// so a front end can never reach into the other.
func TestImportDirection(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(ip, module) {
				target := strings.TrimPrefix(ip, module)
				if target == "internal/invariants" {
					continue
				}
				key, ok := row(allowed, pkg)
				if !ok {
					t.Errorf("%s: package %s has no row in the import table; add one (docs/ARCHITECTURE.md)", path, pkg)
					continue
				}
				if !within(target, allowed[key]) {
					t.Errorf("%s: %s may not import %s (docs/ARCHITECTURE.md import table)", path, pkg, target)
				}
				continue
			}
			for lib, who := range exclusive {
				if (ip == lib || strings.HasPrefix(ip, lib+"/")) && !within(pkg, who) {
					t.Errorf("%s: %s may not import %s (only %v)", path, pkg, ip, who)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
}
