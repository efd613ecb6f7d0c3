package wire

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// streamEvents feeds stream to a RequestStream in the pieces split gives
// and returns the headers and malformed errors it reported, and whether it
// ended at a frame boundary.
func streamEvents(stream []byte, pieces [][]byte) (hs []RequestHeader, bad []error, boundary bool) {
	s := &RequestStream{
		OnRequest:   func(h RequestHeader, _ time.Time) { hs = append(hs, h) },
		OnMalformed: func(err error) { bad = append(bad, err) },
	}
	now := time.Now()
	for _, p := range pieces {
		s.Feed(p, now)
	}
	return hs, bad, s.AtBoundary()
}

func splitWhole(b []byte) [][]byte { return [][]byte{b} }

func splitBytes(b []byte) [][]byte {
	var out [][]byte
	for i := range b {
		out = append(out, b[i:i+1])
	}
	return out
}

func splitRandom(seed uint64) func([]byte) [][]byte {
	return func(b []byte) [][]byte {
		r := rand.New(rand.NewPCG(seed, 2))
		var out [][]byte
		for len(b) > 0 {
			n := min(1+r.IntN(13), len(b))
			out, b = append(out, b[:n]), b[n:]
		}
		return out
	}
}

func TestRequestStreamHandlesAnySplit(t *testing.T) {
	id := "client-7"
	cs := withSize(append([]byte{0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 5}, 0, 0, 0, 1))
	var stream []byte
	stream = append(stream, rawFrame(kmsg.FindCoordinator, 6, 1, int16(len(id)), id, []byte("body-one"))...)
	stream = append(stream, rawFrame(kmsg.ConsumerGroupHeartbeat, 1, 2, -1, "", make([]byte, 300))...)
	stream = append(stream, rawFrame(kmsg.ApiVersions, 4, 3, 0, "", nil)...)
	stream = append(stream, 0, 0, 0, 3, 1, 2, 3) // malformed: shorter than a header
	stream = append(stream, rawFrame(kmsg.Fetch, 17, 4, int16(len(id)), id, []byte{0})...)
	stream = append(stream, rawFrame(kmsg.Fetch, 17, 6, 99, id, nil)...) // malformed: client id past the frame
	stream = append(stream, cs...)                                       // ControlledShutdown v0: no client id
	want := []RequestHeader{
		{Key: kmsg.FindCoordinator, Version: 6, CorrelationID: 1, ClientID: &id},
		{Key: kmsg.ConsumerGroupHeartbeat, Version: 1, CorrelationID: 2},
		{Key: kmsg.ApiVersions, Version: 4, CorrelationID: 3, ClientID: ptr("")},
		{Key: kmsg.Fetch, Version: 17, CorrelationID: 4, ClientID: &id},
		{Key: kmsg.ControlledShutdown, Version: 0, CorrelationID: 5},
	}
	for name, split := range map[string]func([]byte) [][]byte{
		"whole":         splitWhole,
		"byte by byte":  splitBytes,
		"random chunks": splitRandom(1),
	} {
		t.Run(name, func(t *testing.T) {
			got, bad, boundary := streamEvents(stream, split(stream))
			if len(got) != len(want) {
				t.Fatalf("got %d headers, want %d: %+v", len(got), len(want), got)
			}
			for i, g := range got {
				w := want[i]
				if g.Key != w.Key || g.Version != w.Version || g.CorrelationID != w.CorrelationID || (g.ClientID == nil) != (w.ClientID == nil) || g.Client() != w.Client() {
					t.Fatalf("header %d: got %+v (client %v), want %+v (client %v)", i, g, g.ClientID, w, w.ClientID)
				}
			}
			if len(bad) != 2 || !errors.Is(bad[0], ErrMalformed) || !errors.Is(bad[1], ErrMalformed) {
				t.Fatalf("malformed reports %v, want 2 wrapping ErrMalformed", bad)
			}
			if !boundary {
				t.Fatal("stream not at a frame boundary after whole frames")
			}
		})
	}
}

func TestRequestStreamStopsAtNegativeSize(t *testing.T) {
	stream := append([]byte{0xff, 0xff, 0xff, 0xff}, rawFrame(kmsg.Fetch, 4, 1, -1, "", nil)...)
	got, bad, boundary := streamEvents(stream, splitWhole(stream))
	if len(got) != 0 || len(bad) != 1 || boundary {
		t.Fatalf("got %d headers, %v malformed, boundary %v; want nothing after one malformed report", len(got), bad, boundary)
	}
}

// TestRequestStreamAgreesWithParseRequestHeader checks the streaming decoder
// against the whole-frame one on the frames kmsg writes for every request
// kmsg knows, at its oldest and newest version.
func TestRequestStreamAgreesWithParseRequestHeader(t *testing.T) {
	var stream []byte
	var frames [][]byte
	for key := int16(0); key < 200; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			continue
		}
		for _, v := range []int16{0, req.MaxVersion()} {
			if key == int16(kmsg.ControlledShutdown) && v == 0 {
				continue // kmsg's formatter does not write this one
			}
			f := requestFrame(kmsg.RequestForKey(key), v, int32(len(frames)), ptr("agree"))
			frames = append(frames, f)
			stream = append(stream, f...)
		}
	}
	got, bad, _ := streamEvents(stream, splitRandom(7)(stream))
	if len(bad) != 0 || len(got) != len(frames) {
		t.Fatalf("stream: %d headers, malformed %v; want %d headers", len(got), bad, len(frames))
	}
	for i, f := range frames {
		want, err := ParseRequestHeader(f)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !sameHeader(got[i], want) {
			t.Fatalf("frame %d: stream %+v, ParseRequestHeader %+v", i, got[i], want)
		}
		if _, err := ParseRequestFrame(f); err != nil {
			t.Fatalf("frame %d (%s v%d): %v", i, kmsg.NameForKey(int16(want.Key)), want.Version, err)
		}
	}
}

func sameHeader(a, b RequestHeader) bool {
	return a.Size == b.Size && a.Key == b.Key && a.Version == b.Version && a.CorrelationID == b.CorrelationID &&
		(a.ClientID == nil) == (b.ClientID == nil) && a.Client() == b.Client()
}

// frames cuts stream into frames by their size prefixes, as a reader of
// whole frames would; a negative size or a short tail ends it.
func frames(stream []byte) [][]byte {
	var out [][]byte
	for len(stream) >= SizeLen {
		size := int32(binary.BigEndian.Uint32(stream))
		if size < 0 || int64(len(stream)-SizeLen) < int64(size) {
			break
		}
		out = append(out, stream[:SizeLen+int(size)])
		stream = stream[SizeLen+int(size):]
	}
	return out
}

// checkStream is the fuzz property shared by the fuzz target and its seeds:
// the stream reports, frame by frame, exactly what ParseRequestHeader says
// of each whole frame, however the bytes are split, and never panics.
func checkStream(t *testing.T, stream []byte, seed uint64) {
	whole, wholeBad, _ := streamEvents(stream, splitWhole(stream))
	pieces, piecesBad, _ := streamEvents(stream, splitRandom(seed)(stream))
	if !slices.EqualFunc(whole, pieces, sameHeader) || len(wholeBad) != len(piecesBad) {
		t.Fatalf("split changes the result: whole %d headers %d malformed, pieces %d headers %d malformed",
			len(whole), len(wholeBad), len(pieces), len(piecesBad))
	}
	var want []RequestHeader
	nbad := 0
	for _, f := range frames(stream) {
		h, err := ParseRequestHeader(f)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseRequestHeader error %v does not wrap ErrMalformed", err)
			}
			nbad++
			continue
		}
		want = append(want, h)
	}
	// The stream may also have decoded the header of a trailing partial
	// frame, or reported its negative size.
	if len(whole) < len(want) || !slices.EqualFunc(whole[:len(want)], want, sameHeader) {
		t.Fatalf("stream headers %+v, whole-frame headers %+v", whole, want)
	}
	if len(wholeBad) < nbad || len(wholeBad) > nbad+1 || len(whole) > len(want)+1 {
		t.Fatalf("stream: %d headers %d malformed; whole frames: %d headers %d malformed", len(whole), len(wholeBad), len(want), nbad)
	}
}

func FuzzRequestStream(f *testing.F) {
	id := "c"
	f.Add(rawFrame(kmsg.FindCoordinator, 6, 1, 1, id, []byte("body")), uint64(1))
	f.Add(append(rawFrame(kmsg.Fetch, 4, 1, -1, "", nil), 0, 0, 0, 3, 1, 2, 3), uint64(2))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint64(3))
	f.Add(requestFrame(kmsg.NewPtrMetadataRequest(), 12, 9, ptr("x")), uint64(4))
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		checkStream(t, stream, seed)
	})
}

// FuzzParseRequestFrame checks that no input panics the whole-frame parser,
// that every error wraps ErrMalformed, and that a parsed body re-encodes to
// a frame that parses to the same header.
func FuzzParseRequestFrame(f *testing.F) {
	f.Add(requestFrame(kmsg.NewPtrFindCoordinatorRequest(), 6, 1, ptr("c")))
	f.Add(requestFrame(kmsg.NewPtrFetchRequest(), 17, 2, ptr("c")))
	f.Add(requestFrame(kmsg.NewPtrShareFetchRequest(), 1, 3, nil))
	f.Add(rawFrame(kmsg.Fetch, -1, 1, 0, "", nil))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, frame []byte) {
		rf, err := ParseRequestFrame(frame)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if rf.Body == nil {
			return
		}
		again, err := ParseRequestFrame(rf.WithBody(rf.Body))
		if err != nil {
			t.Fatalf("re-encoded frame does not parse: %v", err)
		}
		if again.Key != rf.Key || again.Version != rf.Version || again.CorrelationID != rf.CorrelationID || again.Client() != rf.Client() {
			t.Fatalf("re-encoded header %+v, want %+v", again.RequestHeader, rf.RequestHeader)
		}
	})
}

// FuzzParseResponse checks that no response bytes panic the response
// parser for any request kmsg knows, and that errors wrap ErrMalformed.
func FuzzParseResponse(f *testing.F) {
	f.Add(int16(kmsg.FindCoordinator), int16(6), []byte{0, 0, 0, 5, 0, 0, 0, 1, 0})
	f.Add(int16(kmsg.ApiVersions), int16(3), []byte{0, 0, 0, 4, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, key, version int16, frame []byte) {
		req := kmsg.RequestForKey(key)
		if req == nil || version < 0 || version > req.MaxVersion() {
			return
		}
		req.SetVersion(version)
		rf := &RequestFrame{RequestHeader: RequestHeader{Key: kmsg.Key(key), Version: version}, Body: req}
		if _, _, err := rf.ParseResponse(frame); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
	})
}

// TestRequestStreamKeepsSelectedFrames: frames Keep selects reach OnFrame
// whole and byte for byte, whatever the split, and the frames around them
// are still decoded and skipped.
func TestRequestStreamKeepsSelectedFrames(t *testing.T) {
	id := "client-k"
	var stream []byte
	var want [][]byte
	for i, key := range []kmsg.Key{kmsg.OffsetFetch, kmsg.Fetch, kmsg.OffsetCommit, kmsg.OffsetFetch, kmsg.Metadata} {
		body := make([]byte, 17*i)
		for j := range body {
			body[j] = byte(j + i)
		}
		f := rawFrame(key, 9, int32(i), int16(len(id)), id, body)
		stream = append(stream, f...)
		if key == kmsg.OffsetFetch || key == kmsg.OffsetCommit {
			want = append(want, f)
		}
	}
	// A kept frame with no body at all ends with its header.
	f := rawFrame(kmsg.OffsetFetch, 1, 9, -1, "", nil)
	stream, want = append(stream, f...), append(want, f)
	for name, split := range map[string]func([]byte) [][]byte{
		"whole":         splitWhole,
		"byte by byte":  splitBytes,
		"random chunks": splitRandom(3),
	} {
		t.Run(name, func(t *testing.T) {
			var headers int
			var got [][]byte
			var gotH []RequestHeader
			s := &RequestStream{
				OnRequest: func(RequestHeader, time.Time) { headers++ },
				Keep:      func(h RequestHeader) bool { return h.Key == kmsg.OffsetFetch || h.Key == kmsg.OffsetCommit },
				OnFrame: func(h RequestHeader, frame []byte, _ time.Time) {
					got, gotH = append(got, frame), append(gotH, h)
				},
			}
			for _, p := range split(stream) {
				s.Feed(p, time.Now())
			}
			if headers != 6 || !s.AtBoundary() {
				t.Fatalf("%d headers, boundary %v; want 6 at a boundary", headers, s.AtBoundary())
			}
			if len(got) != len(want) {
				t.Fatalf("kept %d frames, want %d", len(got), len(want))
			}
			for i := range want {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("kept frame %d differs:\n got %x\nwant %x", i, got[i], want[i])
				}
				if h, _ := ParseRequestHeader(want[i]); !sameHeader(gotH[i], h) {
					t.Fatalf("kept frame %d header %+v, want %+v", i, gotH[i], h)
				}
			}
		})
	}
}
