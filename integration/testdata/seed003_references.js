// Önerilen: referans "çok" tarafında
db.yayinevleri.insertOne( { _id: "deniz-yayin", ad: "Deniz Yayınları", sehir: "İzmir" } )

db.kitaplar.insertMany( [
   { _id: 1001, baslik: "Kıyı", sayfa: 210, yayineviId: "deniz-yayin" },
   { _id: 1002, baslik: "Liman", sayfa: 184, yayineviId: "deniz-yayin" }
] )

// Bir yayınevinin kitapları
db.kitaplar.find( { yayineviId: "deniz-yayin" } )
