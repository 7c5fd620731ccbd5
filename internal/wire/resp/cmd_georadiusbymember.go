package resp

var cmdGeoRadiusByMember = def(cmdSpec{
	Name: "georadiusbymember", Arity: -5, Flags: "write denyoom movablekeys", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write geo slow", Group: "geo", Since: "3.2.0",
	Summary:    "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member",
	Complexity: "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
	Handler:    func(x *cmdCtx) error { return geoSearch(x, 1, geoByMember) },
})
