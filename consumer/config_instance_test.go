package consumer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kreactor/kreactor/consumer"
)

// group.instance.id is checked as Java's JoinGroupRequest.validateGroupInstanceId
// checks it, and needs a group.id; the error names the field and the value.
func TestGroupInstanceIDValidation(t *testing.T) {
	for _, c := range []struct {
		id, group string
		ok        bool
	}{
		{"", "", true},
		{"member-1", "g", true},
		{"a.b_c-9", "g", true},
		{"member-1", "", false},
		{"has space", "g", false},
		{"ü", "g", false},
		{strings.Repeat("x", 250), "g", false},
		{strings.Repeat("x", 249), "g", true},
	} {
		cfg := consumer.DefaultConfig()
		cfg.BootstrapServers = []string{"127.0.0.1:9092"}
		cfg.GroupID, cfg.GroupInstanceID = c.group, c.id
		err := cfg.Validate()
		if c.ok {
			if err != nil {
				t.Errorf("id %q group %q: %v", c.id, c.group, err)
			}
			continue
		}
		var ce *consumer.ConfigError
		if !errors.As(err, &ce) || ce.Field != "GroupInstanceID" || ce.Java != "group.instance.id" {
			t.Errorf("id %q group %q: %v, want a ConfigError naming GroupInstanceID", c.id, c.group, err)
		}
	}
}
