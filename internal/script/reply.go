package script

// Kind is the RESP type of a Reply.
type Kind uint8

// The kinds of replies a command gives a script and a script gives its
// client. Nil is RESP2's nil bulk and RESP3's null; NullArray is RESP2's
// nil multibulk.
const (
	Nil Kind = iota
	NullArray
	Status
	Error
	Int
	Bulk
	Array
	Map // Elems holds key, value, key, value...
	Set
	Double
	Bool
	BigNumber
	Verbatim // Str is the text, Format its three-letter format
)

// Reply is one RESP value: what a command answered a script, or what the
// script answers its client.
type Reply struct {
	Kind   Kind
	Str    []byte // Status, Error (code first), Bulk, BigNumber, Verbatim
	Format string // Verbatim
	Int    int64
	Float  float64
	Bool   bool
	Elems  []Reply // Array, Set, Map
}

// ErrorReply is an error reply in Redis's words, code first.
func ErrorReply(msg string) Reply { return Reply{Kind: Error, Str: []byte(msg)} }
