package java

import (
	"testing"
	"time"
)

// TestLastCallTime: the latest command's time inside Java is returned for
// its own kind only, and never for a call that did not reach Java.
func TestLastCallTime(t *testing.T) {
	b := &base{}
	if _, _, ok := b.LastCallTime("poll"); ok {
		t.Fatal("a time before any call")
	}
	b.logCall(CallTiming{Cmd: "close", Java: 300 * time.Millisecond, RoundTrip: 800 * time.Millisecond})
	in, rt, ok := b.LastCallTime("close")
	if !ok || in != 300*time.Millisecond || rt != 800*time.Millisecond {
		t.Errorf("close: %v %v %v, want 300ms 800ms true", in, rt, ok)
	}
	if _, _, ok := b.LastCallTime("poll"); ok {
		t.Error("poll's time after a close")
	}
	b.logCall(CallTiming{Cmd: "commitSync", Java: time.Millisecond, RoundTrip: 2 * time.Millisecond})
	if in, _, ok := b.LastCallTime("commit_sync"); !ok || in != time.Millisecond {
		t.Errorf("commit_sync: %v %v", in, ok)
	}
	b.logCall(CallTiming{Cmd: "poll", Java: -1, RoundTrip: time.Millisecond})
	if _, _, ok := b.LastCallTime("poll"); ok {
		t.Error("a poll that made no consumer call has a time")
	}
	if _, _, ok := b.LastCallTime("nonsense"); ok {
		t.Error("an unknown kind has a time")
	}
}
