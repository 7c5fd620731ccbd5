db.createCollection( "olaylar", {
validator: {
$jsonSchema: {
bsonType: "object",
required: [ "zaman" ],
properties: {
zaman: {
bsonType: "date",
description: "Geçerli bir tarih olmalı."
}
}
}
}
} )
db.olaylar.createIndex( { zaman: 1 }, { expireAfterSeconds: 604800 } )
