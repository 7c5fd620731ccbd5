package resp

var cmdGeoSearchStore = def(cmdSpec{
	Name: "geosearchstore", Arity: -8, Flags: "write denyoom", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write geo slow", Group: "geo", Since: "6.2.0",
	Summary:    "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.",
	Complexity: "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
	Handler:    func(x *cmdCtx) error { return geoSearch(x, 2, geoSearchArgs|geoSearchStore) },
})
