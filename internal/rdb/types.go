package rdb

// The RDB object types (the first byte of a payload) of Redis up to 7.0,
// and the one RDB version written.
const (
	typeString         = 0
	typeList           = 1
	typeSet            = 2
	typeZSet           = 3
	typeHash           = 4
	typeZSet2          = 5
	typeModule         = 6
	typeModule2        = 7
	typeHashZipmap     = 9
	typeListZiplist    = 10
	typeSetIntset      = 11
	typeZSetZiplist    = 12
	typeHashZiplist    = 13
	typeListQuicklist  = 14
	typeStreamLP       = 15
	typeHashListpack   = 16
	typeZSetListpack   = 17
	typeListQuicklist2 = 18
	typeStreamLP2      = 19
	typeSetListpack    = 20

	// Version is the RDB version of Redis 7.0: Dump writes it and Load
	// refuses anything newer.
	Version = 10
)

// The special string encodings of the length byte (its top two bits 11).
const (
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// The container of a quicklist node in a LIST_QUICKLIST_2 payload.
const (
	nodePlain  = 1
	nodePacked = 2
)
