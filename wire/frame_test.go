package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestParseRequestFrameReadsWhatKmsgWrites(t *testing.T) {
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKeys = []string{"group-1"}
	md := kmsg.NewPtrMetadataRequest()
	md.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("t")}}
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group, hb.MemberEpoch = "g", 3
	cs := kmsg.NewPtrControlledShutdownRequest()
	cs.BrokerID = 7
	// kmsg's formatter leaves ControlledShutdown v0 (header v0, no client
	// id) to the caller; it is key, version, correlation id, body.
	cs0 := withSize(append([]byte{0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 42}, cs.AppendTo(nil)...))

	cases := []struct {
		name     string
		req      kmsg.Request
		version  int16
		id       *string
		flexible bool
		raw      []byte // nil: kmsg's formatter writes it
	}{
		{"header v2 (flexible FindCoordinator v6)", fc, 6, ptr("client-a"), true, nil},
		{"header v1 (Metadata v1)", md, 1, ptr("client-b"), false, nil},
		{"null client id", hb, 1, nil, true, nil},
		{"empty client id", md, 9, ptr(""), true, nil},
		{"ControlledShutdown v0 has no client id", cs, 0, nil, false, cs0},
		{"ApiVersions v4 answers with header v0", kmsg.NewPtrApiVersionsRequest(), 4, ptr("c"), false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := c.raw
			if raw == nil {
				raw = requestFrame(c.req, c.version, 42, c.id)
			}
			c.req.SetVersion(c.version)
			f, err := ParseRequestFrame(raw)
			if err != nil {
				t.Fatalf("ParseRequestFrame: %v", err)
			}
			if f.Key != kmsg.Key(c.req.Key()) || f.Version != c.version || f.CorrelationID != 42 || f.Size != int32(len(raw)-SizeLen) {
				t.Fatalf("header %+v, want key %d v%d corr 42 size %d", f.RequestHeader, c.req.Key(), c.version, len(raw)-SizeLen)
			}
			if (f.ClientID == nil) != (c.id == nil) || (c.id != nil && *f.ClientID != *c.id) {
				t.Fatalf("client id %v, want %v", f.ClientID, c.id)
			}
			if f.Body == nil || f.BodyAt < MinRequestSize+SizeLen {
				t.Fatalf("body %v at %d: want kmsg's body after the header", f.Body, f.BodyAt)
			}
			if got, want := f.Body.AppendTo(nil), c.req.AppendTo(nil); !bytes.Equal(got, want) {
				t.Fatalf("body re-encodes to %x, want %x", got, want)
			}
			if !bytes.Equal(f.WithBody(f.Body), raw) {
				t.Fatal("WithBody(own body) is not the frame itself")
			}
			if got := f.ResponseHeaderFlexible(); got != c.flexible {
				t.Fatalf("ResponseHeaderFlexible = %v, want %v", got, c.flexible)
			}
			h, err := ParseRequestHeader(raw)
			if err != nil || h.Key != f.Key || h.CorrelationID != f.CorrelationID || h.Client() != f.Client() {
				t.Fatalf("ParseRequestHeader = %+v, %v; want the frame's header %+v", h, err, f.RequestHeader)
			}
		})
	}
}

func TestParseRequestFrameRelaysWhatKmsgDoesNotKnow(t *testing.T) {
	for _, raw := range [][]byte{
		rawFrame(999, 0, 5, 1, "x", []byte("opaque")),                                        // unknown key
		rawFrame(kmsg.FindCoordinator, 100, 5, 1, "x", []byte{0xff, 0xff, 0xff, 0xff, 0xff}), // version newer than kmsg's
	} {
		f, err := ParseRequestFrame(raw)
		if err != nil {
			t.Fatalf("ParseRequestFrame: %v", err)
		}
		if f.Body != nil || f.BodyAt != -1 || f.CorrelationID != 5 || f.Client() != "x" {
			t.Fatalf("got %+v body %v at %d; want header only (corr 5, client x), no body, BodyAt -1", f.RequestHeader, f.Body, f.BodyAt)
		}
		if !f.ExpectsResponse() {
			t.Fatal("a request of unknown shape must be assumed to expect a response")
		}
	}
}

// TestMalformedRequestFrames checks that every malformed frame gives an
// error wrapping ErrMalformed that names the bad value.
func TestMalformedRequestFrames(t *testing.T) {
	md := requestFrame(kmsg.NewPtrMetadataRequest(), 12, 1, ptr("c"))
	fcReq := kmsg.NewPtrFindCoordinatorRequest()
	fc := requestFrame(fcReq, 6, 1, ptr("c"))
	fcBody := len(fcReq.AppendTo(nil)) // at v6, as requestFrame set it
	cases := []struct {
		name  string
		frame []byte
		want  string
	}{
		{"empty", nil, "size 0: bytes: shorter than the size prefix"},
		{"size prefix disagrees", []byte{0, 0, 0, 9, 1, 2, 3}, "size 9: does not match the 3 bytes after the prefix"},
		{"negative size", []byte{0xff, 0xff, 0xff, 0xfe}, "size -2: does not match"},
		{"shorter than key, version, correlation id", []byte{0, 0, 0, 3, 0, 1, 0}, "size 3: below the 8 bytes"},
		{"negative version", rawFrame(kmsg.Fetch, -3, 1, -1, "", nil), "api version -3: negative (key 1, Fetch)"},
		{"no room for the client id length", withSize(rawFrame(kmsg.Fetch, 4, 1, 0, "", nil)[:13]), "request header 9: ends before the client id's length (key 1 v4)"},
		{"client id length below -1", rawFrame(kmsg.Fetch, 4, 1, -7, "", nil), "client id length -7: below -1"},
		{"client id past the frame", rawFrame(kmsg.Fetch, 4, 1, 50, "abc", nil), "client id length 50: runs past the frame's 13 bytes"},
		{"header tags truncated", withSize(fc[:len(fc)-fcBody-1]), "request header tags 0: bytes: truncated (FindCoordinator v6)"},
		{"body truncated", withSize(md[:len(md)-1]), "request body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRequestFrame(c.frame)
			if err == nil {
				t.Fatalf("ParseRequestFrame(%x) = nil error, want one containing %q", c.frame, c.want)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FrameError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

// withSize rewrites f's size prefix to the bytes after it.
func withSize(f []byte) []byte {
	out := append([]byte(nil), f...)
	n := len(out) - SizeLen
	out[0], out[1], out[2], out[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return out
}

func TestResponses(t *testing.T) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKeys = []string{"g"}
	f, err := ParseRequestFrame(requestFrame(req, 6, 77, ptr("c")))
	if err != nil {
		t.Fatal(err)
	}
	resp := kmsg.NewPtrFindCoordinatorResponse()
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Host, c.Port = "g", 2, "localhost", 9092
	resp.Coordinators = append(resp.Coordinators, c)
	out := f.Response(resp)
	if corr, err := ResponseCorrelationID(out); err != nil || corr != 77 {
		t.Fatalf("ResponseCorrelationID = %d, %v; want 77", corr, err)
	}
	got, at, err := f.ParseResponse(out)
	if err != nil {
		t.Fatalf("ParseResponse: %v", err)
	}
	if at != SizeLen+4+1 { // correlation id, one byte of empty header tags
		t.Fatalf("body at %d, want %d", at, SizeLen+5)
	}
	if g := got.(*kmsg.FindCoordinatorResponse); len(g.Coordinators) != 1 || g.Coordinators[0].NodeID != 2 {
		t.Fatalf("parsed %+v, want coordinator node 2", g)
	}
	got.(*kmsg.FindCoordinatorResponse).Coordinators[0].NodeID = 5
	re := WithResponseBody(out, at, got)
	again, _, err := f.ParseResponse(re)
	if err != nil || again.(*kmsg.FindCoordinatorResponse).Coordinators[0].NodeID != 5 {
		t.Fatalf("after WithResponseBody: %+v, %v; want node 5", again, err)
	}
	if corr, _ := ResponseCorrelationID(re); corr != 77 {
		t.Fatalf("WithResponseBody changed the correlation id to %d", corr)
	}

	for _, c := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"no correlation id", []byte{0, 0, 0, 2, 0, 0}, "response header 6: bytes: shorter than size prefix and correlation id"},
		{"header tags truncated", withSize([]byte{0, 0, 0, 0, 0, 0, 0, 77, 0x80}), "response header tags 1: bytes: truncated (FindCoordinator v6)"},
		{"body truncated", withSize(out[:len(out)-2]), "response body"},
	} {
		_, _, err := f.ParseResponse(c.frame)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(fmtErr(err), c.want) {
			t.Errorf("%s: ParseResponse error %v, want ErrMalformed containing %q", c.name, err, c.want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReadFrame(t *testing.T) {
	good := requestFrame(kmsg.NewPtrApiVersionsRequest(), 3, 9, ptr("c"))
	r := bufio.NewReader(bytes.NewReader(append(append([]byte(nil), good...), good[:6]...)))
	f, at, err := ReadFrame(r, MinRequestSize, DefaultMaxFrame)
	if err != nil || !bytes.Equal(f, good) || at.IsZero() {
		t.Fatalf("ReadFrame = %x, %v, %v; want the frame", f, at, err)
	}
	if _, _, err := ReadFrame(r, MinRequestSize, DefaultMaxFrame); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("frame cut in its body: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, _, err := ReadFrame(bytes.NewReader(nil), MinRequestSize, DefaultMaxFrame); err != io.EOF {
		t.Fatalf("clean end of stream: %v, want io.EOF", err)
	}
	_, _, err = ReadFrame(bytes.NewReader([]byte{0x7f, 0, 0, 0}), MinRequestSize, 1000)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "size 2130706432: outside [8, 1000]") {
		t.Fatalf("huge size: %v, want ErrMalformed naming the size and the bounds", err)
	}
}

func TestExpectsResponse(t *testing.T) {
	p := kmsg.NewPtrProduceRequest()
	p.Acks = 0
	f, err := ParseRequestFrame(requestFrame(p, 9, 1, ptr("c")))
	if err != nil {
		t.Fatal(err)
	}
	if f.ExpectsResponse() {
		t.Fatal("Produce acks=0 expects no response")
	}
	p.Acks = -1
	if f, _ = ParseRequestFrame(requestFrame(p, 9, 1, ptr("c"))); !f.ExpectsResponse() {
		t.Fatal("Produce acks=-1 expects a response")
	}
}
