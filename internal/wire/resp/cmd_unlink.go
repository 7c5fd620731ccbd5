package resp

var cmdUnlink = def("unlink", -2, "write fast", 1, -1, 1, "keyspace write fast", "generic", "4.0.0",
	"Asynchronously deletes one or more keys.", "O(1) for each key removed regardless of its size.", delKeys)
