db.sessions.createIndex(
  { expiresAt: 1 },
  { expireAfterSeconds: 0 }
)
db.login_codes.createIndex(
  { createdAt: 1 },
  { expireAfterSeconds: 300 }
)
db.events.createIndex(
  { createdAt: 1 },
  { expireAfterSeconds: 7 * 24 * 3600 }
)
