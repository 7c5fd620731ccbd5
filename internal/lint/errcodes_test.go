package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// codePackages are the packages that name every MongoDB error code: the
// document model and the wire edge.
var codePackages = []string{"./internal/docdb/...", "./internal/wire/mongo/..."}

const codeType = module + "internal/docdb/mongoerr.Code"

// Ensure that the document model and the wire edge never write a MongoDB
// error code as a number: every integer literal the type checker types
// mongoerr.Code (mongoerr.New(2, ...), &mongoerr.Error{Code: 72},
// e.Code == 11000, mongoerr.Code(40415), a helper's code argument) must be
// one of the names of mongoerr's generated codes.go instead. Tests may keep
// numbers: they state the value a driver sees.
func TestErrorCodesAreNamed(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, exports := listPackages(t, root)
	for _, p := range pkgs {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if e := exports[path]; e != "" {
				return os.Open(e)
			}
			return nil, fmt.Errorf("no export data for %s", path)
		})}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			if ast.IsGenerated(f) {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.INT {
					return true
				}
				if tv, ok := info.Types[lit]; ok && tv.Type.String() == codeType {
					pos := fset.Position(lit.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					t.Errorf("%s:%d: error code %s written as a number; use its mongoerr name (run the errcodes rewriter, or add an assert location to mongoerr/location_codes.yml and go generate)", rel, pos.Line, lit.Value)
				}
				return true
			})
		}
	}
}

// listedPackage is the part of `go list -json` output the test reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	DepOnly    bool
}

// listPackages returns the codePackages and the export data of every
// package they depend on.
func listPackages(t *testing.T, root string) ([]listedPackage, map[string]string) {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,DepOnly"}, codePackages...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && strings.HasPrefix(p.ImportPath, module) && len(p.GoFiles) > 0 {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found none of the packages that must name their error codes")
	}
	return pkgs, exports
}
