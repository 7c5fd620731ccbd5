use uygulama
// Oturumlar oluşturulduktan 30 dakika sonra silinsin
db.oturumlar.createIndex(
{ olusturma: 1 },
{ expireAfterSeconds: 1800 }
)
// Belgeyi eklerken alanı o anki zamanla doldurun
db.oturumlar.insertOne( {
kullanici: "elif",
token: "a1b2c3",
olusturma: new Date()
} )
