db.olaylar2.createIndex(
{ zaman: 1 },
{
expireAfterSeconds: 86400,
partialFilterExpression: { tur: "tiklama" }
}
)
