package resp

import (
	"errors"
	"math"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdLCS = def(cmdSpec{
	Name: "lcs", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "read string slow", Group: "string", Since: "7.0.0",
	Summary:    "Finds the longest common substring.",
	Complexity: "O(N*M) where N and M are the lengths of s1 and s2, respectively",
	Handler:    lcs,
})

// lcsOptions are LCS's options: LEN, IDX, MINMATCHLEN n, WITHMATCHLEN.
type lcsOptions struct {
	getLen, getIdx, withMatchLen bool
	minMatchLen                  int64
}

// lcs is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the
// longest common subsequence of two strings (a missing key is empty), its
// length, or the matching ranges from the end, as Redis computes them.
func lcs(x *cmdCtx) error {
	a, b, err := lcsStrings(x)
	if err != nil {
		return err
	}
	o, err := parseLCSOptions(x.args[3:])
	if err != nil {
		return err
	}
	if int64(len(a)) >= math.MaxUint32-1 || int64(len(b)) >= math.MaxUint32-1 {
		return replyErr("ERR String too long for LCS")
	}
	cells := (int64(len(a)) + 1) * (int64(len(b)) + 1)
	if cells*4 > x.s.cfg.limits().MaxBulkLen {
		return replyErr("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
	}
	t := lcsTable(a, b)
	n := t.at(len(a), len(b))
	if o.getLen && !o.getIdx {
		x.w.Int(int64(n))
		return nil
	}
	seq, matches := t.walk(a, b, o)
	if !o.getIdx {
		x.w.Bulk(seq)
		return nil
	}
	x.w.Map(2)
	x.w.BulkString("matches")
	x.w.Array(len(matches))
	for _, m := range matches {
		x.w.Array(2 + btoi(o.withMatchLen))
		x.w.Array(2)
		x.w.Int(int64(m.aStart))
		x.w.Int(int64(m.aEnd))
		x.w.Array(2)
		x.w.Int(int64(m.bStart))
		x.w.Int(int64(m.bEnd))
		if o.withMatchLen {
			x.w.Int(int64(m.aEnd - m.aStart + 1))
		}
	}
	x.w.BulkString("len")
	x.w.Int(int64(n))
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lcsStrings reads the two strings, "" for a missing key; a key of another
// type is refused with Redis's words.
func lcsStrings(x *cmdCtx) ([]byte, []byte, error) {
	a, _, err := x.tx.Get(x.args[1])
	if err == nil {
		var b []byte
		if b, _, err = x.tx.Get(x.args[2]); err == nil {
			return a, b, nil
		}
	}
	if errors.Is(err, kv.ErrWrongType) {
		return nil, nil, replyErr("ERR The specified keys must contain string values")
	}
	return nil, nil, err
}

func parseLCSOptions(args [][]byte) (lcsOptions, error) {
	var o lcsOptions
	for j := 0; j < len(args); j++ {
		switch a := args[j]; {
		case argEq(a, "idx"):
			o.getIdx = true
		case argEq(a, "len"):
			o.getLen = true
		case argEq(a, "withmatchlen"):
			o.withMatchLen = true
		case argEq(a, "minmatchlen") && j+1 < len(args):
			n, err := parseInt(args[j+1])
			if err != nil {
				return o, err
			}
			o.minMatchLen = max(n, 0)
			j++
		default:
			return o, errSyntax
		}
	}
	if o.getIdx && o.getLen {
		return o, replyErr("ERR If you want both the length and indexes, please just use IDX.")
	}
	return o, nil
}

// lcsDP is the dynamic programming table of LCS: at(i, j) is the length of
// the longest common subsequence of a[:i] and b[:j].
type lcsDP struct {
	cols  int
	cells []uint32
}

func (t lcsDP) at(i, j int) uint32 { return t.cells[j+i*t.cols] }

func lcsTable(a, b []byte) lcsDP {
	t := lcsDP{cols: len(b) + 1, cells: make([]uint32, (len(a)+1)*(len(b)+1))}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				t.cells[j+i*t.cols] = t.at(i-1, j-1) + 1
			default:
				t.cells[j+i*t.cols] = max(t.at(i-1, j), t.at(i, j-1))
			}
		}
	}
	return t
}

// lcsMatch is one range of LCS IDX: a[aStart..aEnd] equals b[bStart..bEnd].
type lcsMatch struct {
	aStart, aEnd, bStart, bEnd int
}

// walk goes back from the end of both strings along the table, building
// the subsequence and, as Redis does, the contiguous ranges it matched in
// both, last first, keeping those at least MINMATCHLEN long.
func (t lcsDP) walk(a, b []byte, o lcsOptions) ([]byte, []lcsMatch) {
	n := t.at(len(a), len(b))
	seq := make([]byte, n)
	var out []lcsMatch
	idx := int(n)
	cur, open := lcsMatch{}, false
	i, j := len(a), len(b)
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			seq[idx-1] = a[i-1]
			switch {
			case !open:
				cur, open = lcsMatch{aStart: i - 1, aEnd: i - 1, bStart: j - 1, bEnd: j - 1}, true
			case cur.aStart == i && cur.bStart == j:
				cur.aStart--
				cur.bStart--
			default:
				emit = true
			}
			if cur.aStart == 0 || cur.bStart == 0 {
				emit = true
			}
			idx, i, j = idx-1, i-1, j-1
		} else {
			if t.at(i-1, j) > t.at(i, j-1) {
				i--
			} else {
				j--
			}
			emit = open
		}
		if emit {
			if o.minMatchLen == 0 || int64(cur.aEnd-cur.aStart+1) >= o.minMatchLen {
				out = append(out, cur)
			}
			open = false
		}
	}
	return seq, out
}
