package resp

var cmdSubstr = def("substr", 4, "readonly", 1, 1, 1, "read string slow", "string", "1.0.0",
	"Returns a substring from a string value.", "O(N) where N is the length of the returned string.", getRange)
