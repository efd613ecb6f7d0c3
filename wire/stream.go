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
// The zero value is unusable; set OnRequest. Feed must not be called
// concurrently.
type RequestStream struct {
	// OnRequest receives each decoded header with the time the frame's
	// first byte was fed. Set before the first Feed; called from Feed.
	OnRequest func(h RequestHeader, at time.Time)
	// OnMalformed, if set, receives each malformed frame's error (wrapping
	// ErrMalformed). Called from Feed.
	OnMalformed func(err error)

	state  streamState
	buf    []byte    // bytes of the size prefix or the header so far
	want   int       // bytes the current state needs in buf
	size   int32     // current frame's size prefix
	skip   int64     // bytes of the current frame still to discard
	at     time.Time // when the current frame's first byte arrived
	broken bool      // a negative size was seen: ignore the rest
}

type streamState uint8

const (
	streamSize   streamState = iota // reading the size prefix
	streamHeader                    // reading the header fields
	streamSkip                      // discarding the rest of the frame
)

// Feed decodes b, the next bytes of the stream, which arrived at now.
func (s *RequestStream) Feed(b []byte, now time.Time) {
	for len(b) > 0 && !s.broken {
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
		s.skipRest(used)
	}
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
