package resp_test

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestEvalModel runs random Lua scripts through EVAL and through a model
// of the commands they call and of Redis's conversions between Lua values
// and RESP2 replies, and compares the replies byte for byte in kind (status,
// error, integer, bulk, array, nil), then every key's type and TTL.
//
// A script is a few statements, each on its own line, and a return:
//
//	local v1 = redis.call('HSET', KEYS[2], 'f', 'x')
//	local ok2, v2 = pcall(redis.call, 'INCR', KEYS[2])
//	local v3 = redis.pcall('LRANGE', KEYS[3], 0, -1)
//	return {v1, ok2, v2, type(v3), redis.status_reply('S'), 2.5, tostring(0.1 + 7)}
//
// over three keys and SET, GET, INCR, DEL, EXPIRE, HSET, HGET, LPUSH and
// LRANGE, so that wrong types, bad integers, missing keys and expiry
// happen. The fake clock does not move: a TTL is exactly what EXPIRE set.
// With MAYFLY_EVAL_MODEL_ADDR set the scripts go to that address instead,
// to check the model against a real Redis.
func TestEvalModel(t *testing.T) {
	e := newEnv(t)
	addr := e.addr
	if a := os.Getenv("MAYFLY_EVAL_MODEL_ADDR"); a != "" {
		// The model itself checked against another server: a
		// redis-server 7.0 on that address.
		addr = a
	}
	conn := dialRaw(t, addr)
	// Each case has keys of its own (a FLUSHALL per case would leave the
	// in-memory store a range deletion per case to step over).
	cases := 0
	property := func(rt *rapid.T) {
		cases++
		keys := make([]string, modelKeyCount)
		for i := range keys {
			keys[i] = fmt.Sprintf("model:%d:%c", cases, 'a'+i)
		}
		m := newModel()
		scripts := rapid.IntRange(1, 3).Draw(rt, "scripts")
		for i := range scripts {
			s := genScript(rt, fmt.Sprintf("script%d", i))
			body := s.render()
			want := m.run(s, body)
			got := conn.do(rt, append([]string{"EVAL", body, strconv.Itoa(len(keys))}, keys...)...)
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("EVAL of\n%s\ngot  %v\nwant %v", body, got, want)
			}
		}
		for i, k := range keys {
			if got, want := conn.do(rt, "TYPE", k), m.typeOf(i+1); !reflect.DeepEqual(got, want) {
				rt.Fatalf("TYPE %s: got %v, want %v", k, got, want)
			}
			if got, want := conn.do(rt, "TTL", k), m.ttlOf(i+1); !reflect.DeepEqual(got, want) {
				rt.Fatalf("TTL %s: got %v, want %v", k, got, want)
			}
		}
	}
	// Rounds of rapid's cases (100 each unless -rapid.checks says
	// otherwise) for a bounded time, at least one.
	budget := 3 * time.Second
	if testing.Short() {
		budget = 500 * time.Millisecond
	}
	for start := time.Now(); ; {
		rapid.Check(t, property)
		if t.Failed() || time.Since(start) > budget {
			break
		}
	}
	t.Logf("%d cases", cases)
}

// modelKeyCount is how many keys a script has, as KEYS[1..3].
const modelKeyCount = 3

// ---- the script grammar

// expr is a Lua expression of the grammar.
type expr interface{ lua() string }

type (
	// litNil, litBool, litNum and litStr are literals.
	litNil  struct{}
	litBool bool
	litNum  float64
	litStr  string
	// varRef names a variable an earlier statement defined.
	varRef string
	// tableExpr is a table constructor {e1, e2, ...}.
	tableExpr []expr
	// statusReply and errorReply are redis.status_reply and
	// redis.error_reply of a string.
	statusReply string
	errorReply  string
	// typeOf is type(v).
	typeOf string
	// arith is a binary operation on two number literals; tostringOf is
	// tostring of one.
	arith struct {
		op   byte // + - * /
		a, b float64
	}
	tostringOf arith
	// callExpr is redis.call (raise) or redis.pcall of a command.
	callExpr struct {
		raise bool
		cmd   command
	}
)

// command is a command with its arguments: a key's index in KEYS (from 1),
// and the others as Lua literals.
type command struct {
	name string
	key  int
	args []expr
}

func (litNil) lua() string { return "nil" }
func (b litBool) lua() string {
	if b {
		return "true"
	}
	return "false"
}
func (n litNum) lua() string      { return strconv.FormatFloat(float64(n), 'g', -1, 64) }
func (s litStr) lua() string      { return "'" + string(s) + "'" }
func (v varRef) lua() string      { return string(v) }
func (s statusReply) lua() string { return "redis.status_reply('" + string(s) + "')" }
func (s errorReply) lua() string  { return "redis.error_reply('" + string(s) + "')" }
func (v typeOf) lua() string      { return "type(" + string(v) + ")" }
func (x arith) lua() string {
	return "(" + litNum(x.a).lua() + " " + string(x.op) + " " + litNum(x.b).lua() + ")"
}
func (x tostringOf) lua() string { return "tostring" + arith(x).lua() }
func (t tableExpr) lua() string {
	parts := make([]string, len(t))
	for i, x := range t {
		parts[i] = x.lua()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
func (c callExpr) lua() string {
	fn := "redis.pcall"
	if c.raise {
		fn = "redis.call"
	}
	return fn + "(" + c.cmd.luaArgs() + ")"
}

func (c command) luaArgs() string {
	parts := []string{"'" + c.name + "'", "KEYS[" + strconv.Itoa(c.key) + "]"}
	for _, a := range c.args {
		parts = append(parts, a.lua())
	}
	return strings.Join(parts, ", ")
}

// stmt is `local NAME = EXPR`, or `local okN, NAME = pcall(redis.call,
// ...)` when luaPcall is set (then cmd is the command).
type stmt struct {
	name     string
	value    expr
	luaPcall bool
	cmd      command
}

type script struct {
	stmts []stmt
	ret   expr
}

// render gives the script's body, one statement a line, the return last.
func (s script) render() string {
	var b strings.Builder
	for _, st := range s.stmts {
		if st.luaPcall {
			fmt.Fprintf(&b, "local ok%s, %s = pcall(redis.call, %s)\n", st.name, st.name, st.cmd.luaArgs())
		} else {
			fmt.Fprintf(&b, "local %s = %s\n", st.name, st.value.lua())
		}
	}
	b.WriteString("return " + s.ret.lua())
	return b.String()
}

// ---- generators

func genScript(t *rapid.T, label string) script {
	var s script
	var vars []string
	n := rapid.IntRange(0, 4).Draw(t, label+" statements")
	for i := range n {
		name := "v" + strconv.Itoa(i+1)
		if rapid.IntRange(0, 3).Draw(t, label+" pcall statement") == 0 {
			s.stmts = append(s.stmts, stmt{name: name, luaPcall: true, cmd: genCommand(t, label)})
			vars = append(vars, "ok"+name, name)
			continue
		}
		s.stmts = append(s.stmts, stmt{name: name, value: genExpr(t, label, vars, 1)})
		vars = append(vars, name)
	}
	s.ret = genExpr(t, label, vars, 0)
	return s
}

// genExpr draws an expression over the variables defined so far; depth
// bounds nested tables.
func genExpr(t *rapid.T, label string, vars []string, depth int) expr {
	kinds := 8
	if len(vars) > 0 {
		kinds += 2
	}
	switch k := rapid.IntRange(0, kinds-1).Draw(t, label+" expr"); k {
	case 6:
		return genArith(t, label)
	case 7:
		return tostringOf(genArith(t, label))
	case 0, 1:
		return callExpr{raise: rapid.Bool().Draw(t, label+" raise"), cmd: genCommand(t, label)}
	case 2:
		return genLiteral(t, label)
	case 3:
		if depth >= 2 {
			return genLiteral(t, label)
		}
		n := rapid.IntRange(0, 4).Draw(t, label+" table length")
		tab := make(tableExpr, n)
		for i := range tab {
			tab[i] = genExpr(t, label, vars, depth+1)
		}
		return tab
	case 4:
		return statusReply(rapid.SampledFrom([]string{"OK", "PONG", "S x", ""}).Draw(t, label+" status"))
	case 5:
		return errorReply(rapid.SampledFrom([]string{"MYERR boom", "oops", "-CODE msg", "-single", ""}).Draw(t, label+" error"))
	case 8:
		return varRef(rapid.SampledFrom(vars).Draw(t, label+" var"))
	default:
		return typeOf(rapid.SampledFrom(vars).Draw(t, label+" typeof"))
	}
}

// genArith draws an operation on two number literals, never dividing by
// zero (whose integer conversion the platform decides).
func genArith(t *rapid.T, label string) arith {
	nums := []float64{1, -3, 42, 2.5, -2.5, 0.5, 7, 1e15, 0.1}
	return arith{
		op: rapid.SampledFrom([]byte("+-*/")).Draw(t, label+" op"),
		a:  rapid.SampledFrom(nums).Draw(t, label+" a"),
		b:  rapid.SampledFrom(nums).Draw(t, label+" b"),
	}
}

func genLiteral(t *rapid.T, label string) expr {
	switch rapid.IntRange(0, 3).Draw(t, label+" literal") {
	case 0:
		return litNil{}
	case 1:
		return litBool(rapid.Bool().Draw(t, label+" bool"))
	case 2:
		return litNum(rapid.SampledFrom([]float64{0, 1, -3, 42, 2.5, -2.5, 0.5}).Draw(t, label+" number"))
	default:
		return litStr(rapid.SampledFrom([]string{"", "x", "7", "hello world"}).Draw(t, label+" string"))
	}
}

// genValueArg is a value argument: a string or a number literal.
func genValueArg(t *rapid.T, label string) expr {
	if rapid.IntRange(0, 3).Draw(t, label+" numeric value") == 0 {
		return litNum(rapid.SampledFrom([]float64{3, -2, 0.5, 10}).Draw(t, label+" number value"))
	}
	return litStr(rapid.SampledFrom([]string{"0", "1", "10", "-5", "x", "1.5", ""}).Draw(t, label+" string value"))
}

func genCommand(t *rapid.T, label string) command {
	c := command{
		name: rapid.SampledFrom([]string{"SET", "GET", "INCR", "DEL", "EXPIRE", "HSET", "HGET", "LPUSH", "LRANGE"}).Draw(t, label+" command"),
		key:  rapid.IntRange(1, modelKeyCount).Draw(t, label+" key"),
	}
	field := func() expr { return litStr(rapid.SampledFrom([]string{"f", "g"}).Draw(t, label+" field")) }
	switch c.name {
	case "SET", "LPUSH":
		c.args = []expr{genValueArg(t, label)}
	case "EXPIRE":
		secs := rapid.SampledFrom([]int{-1, 0, 10, 100}).Draw(t, label+" seconds")
		if rapid.Bool().Draw(t, label+" seconds as number") {
			c.args = []expr{litNum(secs)}
		} else {
			c.args = []expr{litStr(strconv.Itoa(secs))}
		}
	case "HSET":
		c.args = []expr{field(), genValueArg(t, label)}
	case "HGET":
		c.args = []expr{field()}
	case "LRANGE":
		c.args = []expr{
			litNum(rapid.IntRange(-3, 2).Draw(t, label+" start")),
			litNum(rapid.IntRange(-3, 2).Draw(t, label+" stop")),
		}
	}
	return c
}

// ---- the model

// luaVal is a Lua value of the model: nil, bool, float64, string or
// *luaTable.
type luaVal any

// luaTable is a table: its array part, and the ok or err field the
// conversions use.
type luaTable struct {
	arr     []luaVal
	ok, err *string
}

// keyVal is one key of the model's store.
type keyVal struct {
	kind string // "string", "hash" or "list"
	str  string
	hash map[string]string
	list []string
	ttl  int64 // seconds, 0 for none
}

// model is the store of one case, by key index (from 1).
type model struct {
	keys map[int]*keyVal
}

func newModel() *model { return &model{keys: make(map[int]*keyVal)} }

// raised is an error raised out of a statement: the error object's
// message, and the line it was raised on.
type raised struct {
	msg  string
	line int
}

const wrongTypeMsg = "WRONGTYPE Operation against a key holding the wrong kind of value"

// run evaluates s (whose body is body) and returns the reply EVAL gives.
func (m *model) run(s script, body string) (reply respVal) {
	vars := make(map[string]luaVal)
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(raised)
			if !ok {
				panic(r)
			}
			reply = respVal{kind: '-', str: fmt.Sprintf("%s script: %s, on @user_script:%d.", e.msg, sha1hex(body), e.line)}
		}
	}()
	for i, st := range s.stmts {
		line := i + 1
		if st.luaPcall {
			v, errMsg := m.exec(st.cmd)
			if errMsg != "" {
				vars["ok"+st.name] = false
				vars[st.name] = errMsg
			} else {
				vars["ok"+st.name] = true
				vars[st.name] = v
			}
			continue
		}
		vars[st.name] = m.eval(st.value, vars, line)
	}
	return toRESP(m.eval(s.ret, vars, len(s.stmts)+1))
}

func (m *model) eval(x expr, vars map[string]luaVal, line int) luaVal {
	switch x := x.(type) {
	case litNil:
		return nil
	case litBool:
		return bool(x)
	case litNum:
		return float64(x)
	case litStr:
		return string(x)
	case varRef:
		return vars[string(x)]
	case typeOf:
		return luaType(vars[string(x)])
	case arith:
		return x.value()
	case tostringOf:
		return luaNumberText(arith(x).value())
	case statusReply:
		s := string(x)
		return &luaTable{ok: &s}
	case errorReply:
		s := errorReplyText(string(x))
		return &luaTable{err: &s}
	case tableExpr:
		t := &luaTable{}
		for _, el := range x {
			t.arr = append(t.arr, m.eval(el, vars, line))
		}
		return t
	case callExpr:
		v, errMsg := m.exec(x.cmd)
		if errMsg == "" {
			return v
		}
		if x.raise {
			panic(raised{msg: errMsg, line: line})
		}
		return &luaTable{err: &errMsg}
	}
	panic(fmt.Sprintf("unknown expression %T", x))
}

func (x arith) value() float64 {
	switch x.op {
	case '+':
		return x.a + x.b
	case '-':
		return x.a - x.b
	case '*':
		return x.a * x.b
	}
	return x.a / x.b
}

// luaNumberText is Lua 5.1's tostring of a finite number: C's %.14g.
func luaNumberText(f float64) string { return strconv.FormatFloat(f, 'g', 14, 64) }

// errorReplyText is the err field redis.error_reply(s) sets: a leading
// '-' is added when missing and removed again; a message without a space
// has no code of its own and gets ERR.
func errorReplyText(s string) string {
	s = strings.TrimPrefix(s, "-")
	if !strings.Contains(s, " ") {
		return "ERR " + s
	}
	return s
}

func luaType(v luaVal) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	default:
		return "table"
	}
}

// luaArg is a command argument as a script passes it: a string as it is,
// a number formatted with %.17g.
func luaArg(x expr) string {
	switch x := x.(type) {
	case litStr:
		return string(x)
	case litNum:
		return strconv.FormatFloat(float64(x), 'g', 17, 64)
	}
	panic(fmt.Sprintf("argument %T", x))
}

// exec runs a command on the model's store and returns its reply as the
// Lua value redis.call gives, or the error's message.
func (m *model) exec(c command) (luaVal, string) {
	key := c.key
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = luaArg(a)
	}
	kv := m.keys[key]
	wrongType := func(kind string) bool { return kv != nil && kv.kind != kind }
	switch c.name {
	case "SET":
		m.keys[key] = &keyVal{kind: "string", str: args[0]}
		ok := "OK"
		return &luaTable{ok: &ok}, ""
	case "GET":
		if wrongType("string") {
			return nil, wrongTypeMsg
		}
		if kv == nil {
			return false, ""
		}
		return kv.str, ""
	case "INCR":
		if wrongType("string") {
			return nil, wrongTypeMsg
		}
		var n int64
		if kv != nil {
			v, err := strconv.ParseInt(kv.str, 10, 64)
			if err != nil || kv.str == "" || kv.str[0] == '+' || (len(kv.str) > 1 && kv.str[0] == '0') || kv.str == "-0" {
				return nil, "ERR value is not an integer or out of range"
			}
			n = v
		} else {
			kv = &keyVal{kind: "string"}
			m.keys[key] = kv
		}
		n++
		kv.str = strconv.FormatInt(n, 10)
		return float64(n), ""
	case "DEL":
		if kv == nil {
			return float64(0), ""
		}
		delete(m.keys, key)
		return float64(1), ""
	case "EXPIRE":
		secs, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil {
			return nil, "ERR value is not an integer or out of range"
		}
		if kv == nil {
			return float64(0), ""
		}
		if secs <= 0 {
			delete(m.keys, key)
		} else {
			kv.ttl = secs
		}
		return float64(1), ""
	case "HSET":
		if wrongType("hash") {
			return nil, wrongTypeMsg
		}
		if kv == nil {
			kv = &keyVal{kind: "hash", hash: make(map[string]string)}
			m.keys[key] = kv
		}
		_, had := kv.hash[args[0]]
		kv.hash[args[0]] = args[1]
		if had {
			return float64(0), ""
		}
		return float64(1), ""
	case "HGET":
		if wrongType("hash") {
			return nil, wrongTypeMsg
		}
		if kv == nil {
			return false, ""
		}
		v, ok := kv.hash[args[0]]
		if !ok {
			return false, ""
		}
		return v, ""
	case "LPUSH":
		if wrongType("list") {
			return nil, wrongTypeMsg
		}
		if kv == nil {
			kv = &keyVal{kind: "list"}
			m.keys[key] = kv
		}
		kv.list = append([]string{args[0]}, kv.list...)
		return float64(len(kv.list)), ""
	case "LRANGE":
		if wrongType("list") {
			return nil, wrongTypeMsg
		}
		t := &luaTable{}
		if kv == nil {
			return t, ""
		}
		start, _ := strconv.Atoi(args[0])
		stop, _ := strconv.Atoi(args[1])
		n := len(kv.list)
		if start < 0 {
			start += n
		}
		if stop < 0 {
			stop += n
		}
		start = max(start, 0)
		if start > stop || start >= n {
			return t, ""
		}
		stop = min(stop, n-1)
		for _, s := range kv.list[start : stop+1] {
			t.arr = append(t.arr, s)
		}
		return t, ""
	}
	panic("unknown command " + c.name)
}

// toRESP converts a script's value to its RESP2 reply as Redis does: a
// number to an integer (truncated), a string to a bulk string, true to 1,
// false and nil to a nil bulk, a table with an err field to an error and
// with an ok field to a status, any other table to an array of its
// elements up to the first nil.
func toRESP(v luaVal) respVal {
	switch v := v.(type) {
	case nil:
		return respVal{kind: '$', null: true}
	case bool:
		if v {
			return respVal{kind: ':', num: 1}
		}
		return respVal{kind: '$', null: true}
	case float64:
		return respVal{kind: ':', num: int64(math.Trunc(v))}
	case string:
		return respVal{kind: '$', str: v}
	case *luaTable:
		if v.err != nil {
			return respVal{kind: '-', str: *v.err}
		}
		if v.ok != nil {
			return respVal{kind: '+', str: *v.ok}
		}
		out := respVal{kind: '*', arr: []respVal{}}
		for _, el := range v.arr {
			if el == nil {
				break
			}
			out.arr = append(out.arr, toRESP(el))
		}
		return out
	}
	panic(fmt.Sprintf("lua value %T", v))
}

func (m *model) typeOf(key int) respVal {
	if kv := m.keys[key]; kv != nil {
		return respVal{kind: '+', str: kv.kind}
	}
	return respVal{kind: '+', str: "none"}
}

func (m *model) ttlOf(key int) respVal {
	kv := m.keys[key]
	switch {
	case kv == nil:
		return respVal{kind: ':', num: -2}
	case kv.ttl == 0:
		return respVal{kind: ':', num: -1}
	}
	return respVal{kind: ':', num: kv.ttl}
}

// ---- a raw RESP2 client, which keeps a reply's kind (status or bulk)

// respVal is one RESP2 reply: kind is its first byte.
type respVal struct {
	kind byte
	str  string
	num  int64
	null bool
	arr  []respVal
}

func (v respVal) String() string {
	switch {
	case v.null:
		return "(nil)"
	case v.kind == ':':
		return fmt.Sprintf("(integer) %d", v.num)
	case v.kind == '*':
		parts := make([]string, len(v.arr))
		for i, el := range v.arr {
			parts[i] = el.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%c%q", v.kind, v.str)
}

type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c: c, r: bufio.NewReader(c)}
}

func (c *rawConn) do(t *rapid.T, args ...string) respVal {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := c.c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	v, err := c.read()
	if err != nil {
		t.Fatalf("reading the reply to %q: %v", args, err)
	}
	return v
}

func (c *rawConn) read() (respVal, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return respVal{}, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return respVal{}, fmt.Errorf("empty reply line")
	}
	v := respVal{kind: line[0]}
	rest := line[1:]
	switch v.kind {
	case '+', '-':
		v.str = rest
	case ':':
		v.num, err = strconv.ParseInt(rest, 10, 64)
	case '$':
		n, perr := strconv.Atoi(rest)
		if perr != nil {
			return v, perr
		}
		if n < 0 {
			v.null = true
			return v, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return v, err
		}
		v.str = string(buf[:n])
	case '*':
		n, perr := strconv.Atoi(rest)
		if perr != nil {
			return v, perr
		}
		if n < 0 {
			v.null = true
			return v, nil
		}
		v.arr = make([]respVal, 0, n)
		for range n {
			el, err := c.read()
			if err != nil {
				return v, err
			}
			v.arr = append(v.arr, el)
		}
	default:
		return v, fmt.Errorf("unknown reply kind %q", line)
	}
	return v, err
}
