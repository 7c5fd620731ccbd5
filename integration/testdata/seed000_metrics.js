const m = db.serverStatus().metrics.ttl
printjson( {
silinen: m.deletedDocuments,
gecis: m.passes,
altGecis: m.subPasses
} )
