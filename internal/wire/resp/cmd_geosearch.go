package resp

var cmdGeoSearch = def(cmdSpec{
	Name: "geosearch", Arity: -7, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read geo slow", Group: "geo", Since: "6.2.0",
	Summary:    "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.",
	Complexity: "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
	Handler:    func(x *cmdCtx) error { return geoSearch(x, 1, geoSearchArgs) },
})
