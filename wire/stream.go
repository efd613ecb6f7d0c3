package wire

import (
	"encoding/binary"
	"time"
)

// RequestStream decodes the request headers in one connection's client
// byte stream, delivered in pieces of any size (as a net.Conn's Read or
// Write sees them), without holding request bodies: per frame it buffers at
// most the header (key, version, correlation id, client id) and skips the
// rest. Header tags are not read (they sit in the skipped part).
//
// A frame whose header is malformed (ParseRequestHeader's errors) is
// reported to OnMalformed and skipped by its size. A negative size prefix
// leaves no way to find the next frame: it is reported once and the stream
// ignores everything after it.
//
// A frame whose header Keep selects is held whole instead (at most
// DefaultMaxFrame bytes; a larger one is skipped) and handed to OnFrame once
// its last byte arrives, for a tap that needs some request bodies (fakebroker
// answers a few APIs as Kafka does by reading the request a response
// answers).
//
// The zero value is unusable; set OnRequest. Feed must not be called
// concurrently.
type RequestStream struct {
	// OnRequest receives each decoded header with the time the frame's
	// first byte was fed. Set before the first Feed; called from Feed.
	OnRequest func(h RequestHeader, at time.Time)
	// OnMalformed, if set, receives each malformed frame's error (wrapping
	// ErrMalformed). Called from Feed.
	OnMalformed func(err error)
	// Keep, if set together with OnFrame, selects the frames to hold
	// whole: it is asked after OnRequest for each decoded header. Called
	// from Feed.
	Keep func(h RequestHeader) bool
	// OnFrame receives each frame Keep selected, whole (size prefix
	// included; the slice is the callee's), with its header and the time
	// its first byte was fed. Called from Feed.
	OnFrame func(h RequestHeader, frame []byte, at time.Time)

	state  streamState
	buf    []byte        // bytes of the size prefix or the header so far
	want   int           // bytes the current state needs in buf
	size   int32         // current frame's size prefix
	skip   int64         // bytes of the current frame still to discard
	at     time.Time     // when the current frame's first byte arrived
	broken bool          // a negative size was seen: ignore the rest
	kept   []byte        // streamKeep: the frame so far, size prefix included
	keptH  RequestHeader // streamKeep: its header
}

type streamState uint8

const (
	streamSize   streamState = iota // reading the size prefix
	streamHeader                    // reading the header fields
	streamSkip                      // discarding the rest of the frame
	streamKeep                      // holding the rest of a frame Keep selected
)

// Feed decodes b, the next bytes of the stream, which arrived at now.
func (s *RequestStream) Feed(b []byte, now time.Time) {
	for len(b) > 0 && !s.broken {
		if s.state == streamKeep {
			k := min(int64(len(b)), s.skip)
			s.kept = append(s.kept, b[:k]...)
			b = b[k:]
			s.skip -= k
			if s.skip == 0 {
				s.deliverKept()
			}
			continue
		}
		if s.state == streamSkip {
			k := min(int64(len(b)), s.skip)
			b = b[k:]
			s.skip -= k
			if s.skip == 0 {
				s.state = streamSize
			}
			continue
		}
		if s.state == streamSize && len(s.buf) == 0 {
			s.at, s.want = now, SizeLen
		}
		k := min(s.want-len(s.buf), len(b))
		s.buf = append(s.buf, b[:k]...)
		b = b[k:]
		if len(s.buf) == s.want {
			s.advance()
		}
	}
}

// AtBoundary reports whether the stream is between frames (nothing of a
// frame buffered or left to skip), for tests and checks at connection end.
func (s *RequestStream) AtBoundary() bool {
	return !s.broken && s.state == streamSize && len(s.buf) == 0
}

// advance acts on s.buf holding s.want bytes.
func (s *RequestStream) advance() {
	if s.state == streamSize {
		s.size = int32(binary.BigEndian.Uint32(s.buf))
		s.buf = s.buf[:0]
		if s.size < 0 {
			s.malformed(malformed("size", int64(s.size), "negative: the rest of the stream cannot be framed"))
			s.broken = true
			return
		}
		s.state, s.want = streamHeader, 0
	}
	h, used, need, err := decodeRequestHeader(s.size, s.buf)
	switch {
	case err != nil:
		s.malformed(err)
		s.skipRest(len(s.buf))
	case need > 0:
		s.want = need
	default:
		s.OnRequest(h, s.at)
		if s.Keep != nil && s.OnFrame != nil && h.Size <= DefaultMaxFrame && s.Keep(h) {
			s.keep(h, used)
			return
		}
		s.skipRest(used)
	}
}

// keep starts holding the current frame whole, after read bytes of it (the
// header in s.buf).
func (s *RequestStream) keep(h RequestHeader, read int) {
	s.kept = make([]byte, SizeLen, SizeLen+int(s.size))
	binary.BigEndian.PutUint32(s.kept, uint32(s.size))
	s.kept = append(s.kept, s.buf[:read]...)
	s.keptH = h
	s.buf = s.buf[:0]
	s.skip = int64(s.size) - int64(read)
	s.state = streamKeep
	if s.skip == 0 {
		s.deliverKept()
	}
}

// deliverKept hands the held frame to OnFrame and waits for the next one.
func (s *RequestStream) deliverKept() {
	frame, h := s.kept, s.keptH
	s.kept, s.keptH = nil, RequestHeader{}
	s.state = streamSize
	s.OnFrame(h, frame, s.at)
}

func (s *RequestStream) malformed(err error) {
	if s.OnMalformed != nil {
		s.OnMalformed(err)
	}
}

// skipRest discards the rest of the current frame after read bytes of it.
func (s *RequestStream) skipRest(read int) {
	s.buf = s.buf[:0]
	s.skip = int64(s.size) - int64(read)
	if s.skip > 0 {
		s.state = streamSkip
	} else {
		s.state = streamSize
	}
}
