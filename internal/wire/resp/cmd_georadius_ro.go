package resp

var cmdGeoRadiusRO = def(cmdSpec{
	Name: "georadius_ro", Arity: -6, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read geo slow", Group: "geo", Since: "3.2.10",
	Summary:    "A read-only variant for GEORADIUS",
	Complexity: "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
	Handler:    func(x *cmdCtx) error { return geoSearch(x, 1, geoByCoords|geoNoStore) },
})
