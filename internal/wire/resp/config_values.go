package resp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mayfly/mayfly/internal/kv"
)

// parseValue validates a CONFIG SET value for p and returns the form
// CONFIG GET shows, or the error message Redis gives (without the
// "CONFIG SET failed" prefix).
func parseValue(c *config, p *paramSpec, v string) (string, string) {
	var args []string
	if p.flags&multiArg != 0 {
		args = splitSpaces(v)
	} else {
		args = []string{v}
	}
	switch p.kind {
	case kindBool:
		switch {
		case strings.EqualFold(v, "yes"):
			return "yes", ""
		case strings.EqualFold(v, "no"):
			return "no", ""
		}
		return "", "argument must be 'yes' or 'no'"
	case kindString:
		if p.valid != nil {
			if msg := p.valid(v); msg != "" {
				return "", msg
			}
		}
		return v, ""
	case kindEnum:
		return parseEnum(p, args)
	case kindNumber:
		n, msg := parseNumber(p, v)
		if msg != "" {
			return "", msg
		}
		if msg := checkBounds(p, n); msg != "" {
			return "", msg
		}
		return formatNumber(p, n), ""
	case kindSpecial:
		return p.parse(c, args)
	}
	return "", "unknown parameter kind"
}

// splitSpaces splits on every single space, as Redis splits the value of a
// multi-argument parameter: "" is no arguments, "a  b" has an empty one.
func splitSpaces(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, " ")
}

func parseEnum(p *paramSpec, args []string) (string, string) {
	multi := p.flags&multiArg != 0
	val := 0
	ok := len(args) > 0 && (multi || len(args) == 1)
	for _, a := range args {
		matched := false
		for _, e := range p.enum {
			if strings.EqualFold(a, e.name) {
				val |= e.val
				matched = true
			}
		}
		ok = ok && matched
	}
	if !ok {
		ns := make([]string, len(p.enum))
		for i, e := range p.enum {
			ns[i] = e.name
		}
		return "", "argument(s) must be one of the following: " + strings.Join(ns, ", ")
	}
	if multi && val&1 != 0 && val&2 != 0 {
		return "", "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	return enumName(p, val), ""
}

// enumName is the name CONFIG GET shows for val: the first entry with
// exactly that value, or for flags the names of its bits in table order.
func enumName(p *paramSpec, val int) string {
	var out []string
	rest := val
	for _, e := range p.enum {
		if e.val == val {
			return e.name
		}
		if p.flags&multiArg != 0 && e.val != 0 && rest&e.val == e.val {
			out = append(out, e.name)
			rest &^= e.val
		}
	}
	if len(out) == 0 || rest != 0 {
		return "unknown"
	}
	return strings.Join(out, " ")
}

// parseNumber parses a number as Redis does for p's flags: a memory value
// first, then a percentage, then octal, and a plain integer only when p
// accepts no other spelling.
func parseNumber(p *paramSpec, v string) (int64, string) {
	if p.num&numMemory != 0 {
		if u, ok := parseMemoryValue(v); ok {
			return int64(u), ""
		}
	}
	if p.num&numPercent != 0 && len(v) > 1 && v[len(v)-1] == '%' {
		if n, ok := kv.ParseInt([]byte(v[:len(v)-1])); ok && n >= 0 {
			return -n, ""
		}
	}
	if p.num&numOctal != 0 {
		if n, err := strconv.ParseInt(v, 8, 64); err == nil {
			return n, ""
		}
	}
	if p.num&^numUnsigned == 0 {
		if n, ok := kv.ParseInt([]byte(v)); ok {
			return n, ""
		}
	}
	switch {
	case p.num&numMemory != 0 && p.num&numPercent != 0:
		return 0, "argument must be a memory or percent value"
	case p.num&numMemory != 0:
		return 0, "argument must be a memory value"
	case p.num&numOctal != 0:
		return 0, "argument couldn't be parsed as an octal number"
	}
	return 0, "argument couldn't be parsed into an integer"
}

// checkBounds checks n against p's range: unsigned parameters compare as
// unsigned 64-bit values (so -1 is above any bound), a percentage (stored
// negative) against its own limit.
func checkBounds(p *paramSpec, n int64) string {
	if p.num&numUnsigned != 0 {
		u, lo, hi := uint64(n), uint64(p.lo), uint64(p.hi)
		if u > hi || u < lo {
			if p.num&numOctal != 0 {
				return fmt.Sprintf("argument must be between %o and %o inclusive", lo, hi)
			}
			return fmt.Sprintf("argument must be between %d and %d inclusive", lo, hi)
		}
		return ""
	}
	if p.num&numPercent != 0 && n < 0 {
		if n < p.lo {
			return fmt.Sprintf("percentage argument must be less or equal to %d", -p.lo)
		}
		return ""
	}
	if n > p.hi || n < p.lo {
		return fmt.Sprintf("argument must be between %d and %d inclusive", p.lo, p.hi)
	}
	return ""
}

// formatNumber renders n as CONFIG GET shows it.
func formatNumber(p *paramSpec, n int64) string {
	switch {
	case p.num&numPercent != 0 && n < 0:
		return strconv.FormatInt(-n, 10) + "%"
	case p.num&numMemory != 0:
		return strconv.FormatUint(uint64(n), 10)
	case p.num&numOctal != 0:
		return strconv.FormatUint(uint64(n), 8)
	}
	return strconv.FormatInt(n, 10)
}

// parseMemoryValue parses Redis's memory units: digits, then nothing or b,
// k (1000), kb (1024), m, mb, g or gb in any case. No digits is zero; a
// number too large for 64 bits saturates and the unit's multiplication
// wraps, as in Redis.
func parseMemoryValue(v string) (uint64, bool) {
	if strings.HasPrefix(v, "-") {
		return 0, false
	}
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(v[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1 << 10
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var n uint64
	if i > 0 {
		u, err := strconv.ParseUint(v[:i], 10, 64)
		if err != nil {
			u = math.MaxUint64
		}
		n = u
	}
	return n * mul, true
}

// cInt parses s as C's strtoll does for a whole argument: leading
// white space, an optional sign, decimal digits (none is zero), saturating
// on overflow; ok is false when anything follows the digits.
func cInt(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		// No digits: strtoll stops at the start of s.
		return 0, s == ""
	}
	if i != len(t) {
		return 0, false
	}
	u, err := strconv.ParseUint(t, 10, 64)
	switch {
	case err != nil || (!neg && u > math.MaxInt64):
		if neg {
			return math.MinInt64, true
		}
		return math.MaxInt64, true
	case neg && u > 1<<63:
		return math.MinInt64, true
	case neg:
		return -int64(u), true
	}
	return int64(u), true
}

// parseSave parses save: pairs of seconds (at least 1) and changes (at
// least 0); none means no snapshots.
func parseSave(_ *config, args []string) (string, string) {
	if len(args)%2 != 0 {
		return "", "Invalid save parameters"
	}
	out := make([]string, len(args))
	for j, a := range args {
		n, ok := cInt(a)
		if !ok || (j%2 == 0 && n < 1) || (j%2 == 1 && n < 0) {
			return "", "Invalid save parameters"
		}
		if j%2 == 1 {
			n = int64(int32(n))
		}
		out[j] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, " "), ""
}

var outputBufferClasses = []string{"normal", "slave", "pubsub"}

// parseOutputBufferLimit parses client-output-buffer-limit: groups of
// class, hard limit, soft limit and soft seconds; the classes not named
// keep their limits.
func parseOutputBufferLimit(c *config, args []string) (string, string) {
	if len(args)%4 != 0 {
		return "", "Wrong number of arguments in buffer limit configuration."
	}
	cur := strings.Fields(c.vals["client-output-buffer-limit"])
	limits := map[string][]string{}
	for i := 0; i+3 < len(cur); i += 4 {
		limits[cur[i]] = cur[i+1 : i+4]
	}
	for j := 0; j < len(args); j += 4 {
		class := strings.ToLower(args[j])
		if class == "replica" {
			class = "slave"
		}
		if limits[class] == nil {
			return "", "Invalid client class specified in buffer limit configuration."
		}
		hard, hok := parseMemoryValue(args[j+1])
		soft, sok := parseMemoryValue(args[j+2])
		secs, ok := cInt(args[j+3])
		secs = int64(int32(secs))
		if !hok || !sok || !ok || secs < 0 {
			return "", "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		limits[class] = []string{strconv.FormatUint(hard, 10), strconv.FormatUint(soft, 10), strconv.FormatInt(secs, 10)}
	}
	var b strings.Builder
	for i, class := range outputBufferClasses {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(class + " " + strings.Join(limits[class], " "))
	}
	return b.String(), ""
}

func parseOOMScoreAdjValues(_ *config, args []string) (string, string) {
	if len(args) != 3 {
		return "", "wrong number of arguments"
	}
	out := make([]string, 3)
	for i, a := range args {
		n, ok := cInt(a)
		if !ok || n < -2000 || n > 2000 {
			return "", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
		out[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, " "), ""
}

func parseNotifyParam(_ *config, args []string) (string, string) {
	f, ok := parseNotify(args[0])
	if !ok {
		return "", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
	}
	return notifyString(f), ""
}

func parseBind(_ *config, args []string) (string, string) {
	if len(args) > 16 {
		return "", "Too many bind addresses specified."
	}
	return strings.Join(args, " "), ""
}

func parsePercentiles(_ *config, args []string) (string, string) {
	out := make([]string, len(args))
	for i, a := range args {
		f, err := strconv.ParseFloat(a, 64)
		if a == "" || strings.ContainsAny(a[:1], " \t\n\v\f\r") || err != nil || math.IsNaN(f) {
			return "", "Invalid latency-tracking-info-percentiles parameters"
		}
		if f > 100 || f < 0 {
			return "", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		s := strconv.FormatFloat(f, 'f', 6, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		out[i] = s
	}
	return strings.Join(out, " "), ""
}

// validHostname is cluster-announce-hostname's rule.
func validHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

func baseNameOnly(msg string) func(string) string {
	return func(v string) string {
		if strings.ContainsAny(v, "/\\") {
			return msg
		}
		return ""
	}
}

// validProcTitle checks proc-title-template: "{{" is a literal brace,
// every other "{name}" must name one of Redis's variables, and the title
// it gives with an empty {title} must not be blank.
func validProcTitle(v string) string {
	const bad = "template format is invalid or contains unknown variables"
	var out strings.Builder
	for p := v; p != ""; {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			out.WriteString(p)
			break
		}
		out.WriteString(p[:i])
		p = p[i+1:]
		if p == "" {
			return bad
		}
		if p[0] == '{' {
			out.WriteByte('{')
			p = p[1:]
			continue
		}
		j := strings.IndexByte(p, '}')
		if j < 0 {
			return bad
		}
		switch p[:j] {
		case "title", "server-mode", "unixsocket":
		case "listen-addr", "config-file", "port", "tls-port":
			out.WriteString("x")
		default:
			return bad
		}
		p = p[j+1:]
	}
	if strings.Trim(out.String(), " ") == "" {
		return bad
	}
	return ""
}
