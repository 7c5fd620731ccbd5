db.kuponlar.createIndex( { sonKullanma: 1 }, { expireAfterSeconds: 0 } )
db.kuponlar.insertOne( {
kod: "KASIM20",
indirim: 20,
sonKullanma: new Date("2026-11-30T21:00:00Z")
} )
