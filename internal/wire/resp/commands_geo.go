package resp

// geoCommands lists the geo commands, which keep points in sorted sets
// scored by their geohash (internal/geo); each is defined in its own file
// (cmd_<name>.go); the searches share geo_query.go (parsing) and
// geo_search.go (running).
func geoCommands() []*command {
	return []*command{
		cmdGeoAdd, cmdGeoDist, cmdGeoHash, cmdGeoPos, cmdGeoRadius, cmdGeoRadiusByMember,
		cmdGeoRadiusByMemberRO, cmdGeoRadiusRO, cmdGeoSearch, cmdGeoSearchStore,
	}
}
