package byname

import (
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	known := map[string]int{"a": 1, "b": 2}
	const env = "KREACTOR_BYNAME_TEST"
	for _, tc := range []struct {
		value string
		want  int
	}{{"", 1}, {" b ", 2}} {
		t.Setenv(env, tc.value)
		if got, err := FromEnv(env, "a", known); err != nil || got != tc.want {
			t.Errorf("%s=%q: %v, %v, want %v", env, tc.value, got, err, tc.want)
		}
	}
	t.Setenv(env, "c")
	if _, err := FromEnv(env, "a", known); err == nil || !strings.Contains(err.Error(), `KREACTOR_BYNAME_TEST="c" is not known; known: a, b`) {
		t.Errorf("unknown name: %v", err)
	}
}
