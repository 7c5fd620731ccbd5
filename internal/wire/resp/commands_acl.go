package resp

// aclCommands are the access control commands.
func aclCommands() []*command { return []*command{cmdACL} }
