db.runCommand( {
collMod: "oturumlar",
index: {
keyPattern: { olusturma: 1 },
expireAfterSeconds: 3600
}
} )
