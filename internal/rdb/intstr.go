package rdb

import "strconv"

// parseInt parses b as Redis's string2ll does: an optional '-', no '+',
// no leading zeros or spaces, within the signed 64-bit range. Only such
// strings are stored as integers, so that they read back byte for byte.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	s := b
	if s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}
