package control

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func decodeLog(t *testing.T, data []byte) []LogEntry {
	t.Helper()
	var out []LogEntry
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var e LogEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// TestLogPages: the log pages by seq, filters by API and client id, and
// keeps the selected bodies' top-level fields.
func TestLogPages(t *testing.T) {
	e := newEnv(t, Config{})
	cl := e.client(t)
	for range 5 {
		findCoordinator(t, cl, "g")
	}
	_, data := e.do(t, "GET", "/v1/log?key=FindCoordinator&client_id=control-test&limit=2", nil)
	page := decodeLog(t, data)
	if len(page) != 2 {
		t.Fatalf("page 1: %d entries, want 2", len(page))
	}
	for _, p := range page {
		if p.Key != "FindCoordinator" || p.ClientID != "control-test" || p.Body["coordinator_type"] != float64(0) {
			t.Errorf("entry %+v: want a FindCoordinator of control-test with body coordinator_type 0", p)
		}
	}
	var all []LogEntry
	after := uint64(0)
	for range 10 {
		req, _ := http.NewRequest("GET", e.url+"/v1/log?key=FindCoordinator&limit=2&after="+strconv.FormatUint(after, 10), nil)
		resp, err := e.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got []LogEntry
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var x LogEntry
			_ = json.Unmarshal(sc.Bytes(), &x)
			got = append(got, x)
		}
		resp.Body.Close()
		next, _ := strconv.ParseUint(resp.Header.Get("X-Next-Seq"), 10, 64)
		all = append(all, got...)
		if next == after {
			break
		}
		after = next
	}
	if len(all) != 5 {
		t.Fatalf("paged %d FindCoordinator entries, want 5", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Errorf("seq not increasing: %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}
	var st LogStats
	_, data = e.do(t, "GET", "/v1/log/stats", nil)
	_ = json.Unmarshal(data, &st)
	if st.Recorded < 5 || st.Kept != int(st.Recorded) || st.Capacity != 1_000_000 {
		t.Errorf("stats %+v", st)
	}
	e.do(t, "POST", "/v1/reset", nil)
	_, data = e.do(t, "GET", "/v1/log", nil)
	if n := len(decodeLog(t, data)); n != 0 {
		t.Errorf("after reset: %d entries", n)
	}
	findCoordinator(t, cl, "g")
	_, data = e.do(t, "GET", "/v1/log?key=FindCoordinator", nil)
	if got := decodeLog(t, data); len(got) != 1 || got[0].Body == nil {
		t.Errorf("after reset: %+v, want one FindCoordinator with its body (bodies kept across reset)", got)
	}
}

// TestLogFollow: follow streams requests as they arrive and ends when the
// server closes.
func TestLogFollow(t *testing.T) {
	e := newEnv(t, Config{})
	cl := e.client(t)
	lines := followLog(t, e, "key=FindCoordinator")
	for i := range 3 {
		findCoordinator(t, cl, "g")
		select {
		case x := <-lines:
			if x.Key != "FindCoordinator" {
				t.Errorf("streamed %+v", x)
			}
		case <-time.After(testTimeout):
			t.Fatalf("request %d not streamed", i)
		}
	}
	e.s.Close() // ends the stream
	select {
	case _, ok := <-lines:
		if ok {
			t.Error("stream went on after Close")
		}
	case <-time.After(testTimeout):
		t.Fatal("stream did not end at Close")
	}
}

// TestLogAcrossReset: a reset does not restart seq, so a follow stream
// open across it and a pager resuming from its X-Next-Seq see the requests
// that come after it.
func TestLogAcrossReset(t *testing.T) {
	e := newEnv(t, Config{})
	cl := e.client(t)
	lines := followLog(t, e, "key=FindCoordinator")
	next := func() LogEntry {
		t.Helper()
		select {
		case x := <-lines:
			return x
		case <-time.After(testTimeout):
			t.Fatal("request not streamed")
			return LogEntry{}
		}
	}
	for range 3 {
		findCoordinator(t, cl, "g")
	}
	var before LogEntry
	for range 3 {
		before = next()
	}
	req, _ := http.NewRequest("GET", e.url+"/v1/log?key=FindCoordinator", nil)
	page, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	resume := page.Header.Get("X-Next-Seq")

	e.do(t, "POST", "/v1/reset", nil)
	findCoordinator(t, cl, "g")
	if after := next(); after.Key != "FindCoordinator" || after.Seq <= before.Seq {
		t.Errorf("streamed after reset %+v, want a FindCoordinator with seq > %d", after, before.Seq)
	}
	_, data := e.do(t, "GET", "/v1/log?key=FindCoordinator&after="+resume, nil)
	if got := decodeLog(t, data); len(got) != 1 {
		t.Errorf("paging from X-Next-Seq %s after reset: %d entries, want 1", resume, len(got))
	}
	var st LogStats
	_, data = e.do(t, "GET", "/v1/log/stats", nil)
	_ = json.Unmarshal(data, &st)
	if st.NextSeq <= before.Seq || st.Kept != int(st.Recorded) {
		t.Errorf("stats after reset %+v: want next_seq > %d", st, before.Seq)
	}
	e.s.Close()
	for range lines {
	}
}

// followLog opens GET /v1/log?follow=true&QUERY for the rest of the test and
// streams its entries; the channel closes when the stream ends.
func followLog(t *testing.T, e *env, query string) <-chan LogEntry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/v1/log?follow=true&"+query, nil)
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan LogEntry)
	go func() {
		defer close(lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var x LogEntry
			_ = json.Unmarshal(sc.Bytes(), &x)
			select {
			case lines <- x:
			case <-ctx.Done():
				return
			}
		}
	}()
	return lines
}
