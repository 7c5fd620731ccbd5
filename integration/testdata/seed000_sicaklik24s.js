db.createCollection( "sicaklik24s", {
timeseries: {
timeField: "zaman",
metaField: "sensor",
granularity: "hours"
},
expireAfterSeconds: 86400
} )
// Test sensörünün verisi 1 saat sonra silinsin
db.sicaklik24s.createIndex(
{ zaman: 1 },
{
partialFilterExpression: { sensor: { $eq: "test-01" } },
expireAfterSeconds: 3600
}
)
