package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/kv"
)

// argEq compares an argument with a lowercase keyword, ignoring ASCII case.
func argEq(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// parseInt parses an integer argument as Redis does.
func parseInt(b []byte) (int64, error) {
	n, ok := kv.ParseInt(b)
	if !ok {
		return 0, errNotInt
	}
	return n, nil
}

// parseDB parses a database index argument.
func parseDB(b []byte) (int, error) {
	n, err := parseInt(b)
	if err != nil {
		return 0, err
	}
	if n < 0 || n >= kv.NumDBs || n > 1<<31-1 {
		return 0, errDBIndex
	}
	return int(n), nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// bulkOrNull writes b, or a null reply when ok is false.
func bulkOrNull(w *Writer, b []byte, ok bool) {
	if !ok {
		w.Null()
		return
	}
	w.Bulk(b)
}

// globMatch matches a string against a glob pattern, case-insensitively.
func globMatch(pattern, s string) bool { return glob.Match([]byte(pattern), []byte(s), true) }
