package consumer

// maxInstanceIDLen is the longest group.instance.id Kafka accepts (Java's
// JoinGroupRequest.validateGroupInstanceId: the topic name rules).
const maxInstanceIDLen = 249

// validateInstanceID checks group.instance.id as Java's
// JoinGroupRequest.validateGroupInstanceId does (not empty when set, at
// most 249 characters of [a-zA-Z0-9._-]) and that it comes with a group.id.
func validateInstanceID(id, groupID string) error {
	if id == "" {
		return nil
	}
	bad := func(why string) error {
		return &ConfigError{Field: "GroupInstanceID", Java: "group.instance.id", Value: id, Reason: why}
	}
	switch {
	case groupID == "":
		return bad("needs a GroupID (group.id): static membership is membership of a group")
	case len(id) > maxInstanceIDLen:
		return bad("must be at most 249 characters")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return bad("may contain only ASCII letters, digits, '.', '_' and '-'")
		}
	}
	return nil
}
