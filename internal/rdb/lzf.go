package rdb

import "errors"

// LZF, the compression of RDB strings. A compressed stream is a sequence
// of runs: a control byte below 32 starts a run of ctrl+1 literal bytes;
// otherwise its top three bits are a back reference's length minus two
// (7 meaning a further length byte follows, added to 7) and its low five
// bits with the next byte the offset minus one, back from the current end.

const (
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = 1<<8 + 1<<3
	lzfHLog   = 16
)

var errLZF = errors.New("rdb: corrupt LZF data")

// lzfDecompress expands in into exactly n bytes. The output grows as it
// is written, so a length claimed beyond what the data holds costs no
// memory.
func lzfDecompress(in []byte, n int) ([]byte, error) {
	out := make([]byte, 0, min(n, 4*len(in)+64))
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < lzfMaxLit {
			l := ctrl + 1
			if i+l > len(in) || len(out)+l > n {
				return nil, errLZF
			}
			out = append(out, in[i:i+l]...)
			i += l
			continue
		}
		l := ctrl >> 5
		if l == 7 {
			if i >= len(in) {
				return nil, errLZF
			}
			l += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, errLZF
		}
		ref := len(out) - ((ctrl&0x1f)<<8 | int(in[i])) - 1
		i++
		l += 2
		if ref < 0 || len(out)+l > n {
			return nil, errLZF
		}
		for j := 0; j < l; j++ { // the reference may overlap what it writes
			out = append(out, out[ref+j])
		}
	}
	if len(out) != n {
		return nil, errLZF
	}
	return out, nil
}

// lzfCompress compresses in as Redis's LZF compressor does (a 2^16-slot
// hash table of 3-byte prefixes, starting empty; after a back reference
// the last two positions it covers are hashed) and returns nil when the
// result would not be shorter than limit bytes.
func lzfCompress(in []byte, limit int) []byte {
	if len(in) < 3 || limit <= 0 {
		return nil
	}
	var table [1 << lzfHLog]int32 // position+1 of the last 3-byte prefix with each hash; 0 for none
	idx := func(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (1<<lzfHLog - 1) }
	out := make([]byte, 1, limit+1) // out[litStart] is the pending literal run's control byte
	litStart, lit := 0, 0
	ip := 0
	h := uint32(in[0])<<8 | uint32(in[1])
	n := len(in)
	for ip < n-2 {
		h = h<<8 | uint32(in[ip+2])
		slot := &table[idx(h)]
		ref := int(*slot) - 1
		*slot = int32(ip + 1)
		if ref > 0 && ref < ip && ip-ref-1 < lzfMaxOff &&
			in[ref] == in[ip] && in[ref+1] == in[ip+1] && in[ref+2] == in[ip+2] {
			off := ip - ref - 1
			l := matchLen(in, ref, ip, min(n-ip-2, lzfMaxRef))
			// room for the reference (up to 3 bytes) and the next run's control byte
			if len(out)-boolInt(lit == 0)+3+1 >= limit {
				return nil
			}
			out[litStart] = byte(lit - 1)
			if lit == 0 {
				out = out[:len(out)-1]
			}
			l -= 2
			ip++
			if l < 7 {
				out = append(out, byte(off>>8+l<<5))
			} else {
				out = append(out, byte(off>>8+7<<5), byte(l-7))
			}
			out = append(out, byte(off))
			litStart, lit = len(out), 0
			out = append(out, 0)
			ip += l + 1
			if ip >= n-2 {
				break
			}
			ip -= 2
			h = uint32(in[ip])<<8 | uint32(in[ip+1])
			h = h<<8 | uint32(in[ip+2])
			table[idx(h)] = int32(ip + 1)
			ip++
			h = h<<8 | uint32(in[ip+2])
			table[idx(h)] = int32(ip + 1)
			ip++
			continue
		}
		if len(out) >= limit {
			return nil
		}
		out = append(out, in[ip])
		ip++
		lit++
		if lit == lzfMaxLit {
			out[litStart] = byte(lit - 1)
			litStart, lit = len(out), 0
			out = append(out, 0)
		}
	}
	if len(out)+3 > limit {
		return nil
	}
	for ip < n {
		out = append(out, in[ip])
		ip++
		lit++
		if lit == lzfMaxLit {
			out[litStart] = byte(lit - 1)
			litStart, lit = len(out), 0
			out = append(out, 0)
		}
	}
	out[litStart] = byte(lit - 1)
	if lit == 0 {
		out = out[:len(out)-1]
	}
	if len(out) > limit {
		return nil
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// matchLen returns how many bytes from ref equal those from ip (at least
// the three already compared), as Redis's compressor counts them: when more
// than 16 may match it first compares up to 16 more bytes one by one and
// then goes on while below maxLen, so the count may pass maxLen by up to
// two bytes, never past the end of in.
func matchLen(in []byte, ref, ip, maxLen int) int {
	l := 2
	if maxLen > 16 {
		for range 16 {
			l++
			if in[ref+l] != in[ip+l] {
				return l
			}
		}
	}
	for {
		l++
		if l >= maxLen || in[ref+l] != in[ip+l] {
			return l
		}
	}
}
