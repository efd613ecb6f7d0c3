package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxFrame is the largest frame, in bytes after the size prefix, a
// reader of whole frames accepts unless told otherwise: 100 MiB (Kafka's
// socket.request.max.bytes default).
const DefaultMaxFrame = 100 << 20

// ReadFrame reads one size-prefixed frame from r and returns it whole (prefix
// included) with the time its size prefix was read. A size below min or
// above max is a *FrameError (the body is not read, so at most max+4 bytes
// are allocated per frame); io errors are returned as is, with io.EOF inside
// a frame turned into io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader, min, max int32) ([]byte, time.Time, error) {
	var pre [SizeLen]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, time.Time{}, err
	}
	at := time.Now()
	size := int32(binary.BigEndian.Uint32(pre[:]))
	if size < min || size > max {
		return nil, at, malformed("size", int64(size), "outside [%d, %d]", min, max)
	}
	frame := make([]byte, SizeLen+int(size))
	copy(frame, pre[:])
	if _, err := io.ReadFull(r, frame[SizeLen:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, at, err
	}
	return frame, at, nil
}

// RequestFrame is one whole request frame, parsed.
type RequestFrame struct {
	RequestHeader
	// Raw is the whole frame, size prefix included.
	Raw []byte
	// BodyAt is the offset of the body in Raw; -1 when Body is nil.
	BodyAt int
	// Body is the request body read by kmsg; nil when kmsg does not know
	// the key or the version (newer than kmsg's): then whether the header
	// has tags, and so where the body starts, is unknown.
	Body kmsg.Request
}

// ParseRequestFrame parses frame, a whole request frame with its size
// prefix: its header (v1, or v2 with tagged fields when kmsg says the
// version is flexible) and, when kmsg knows the key and version, its body.
// Errors wrap ErrMalformed and name the bad value: the ParseRequestHeader
// errors, truncated header tags, a body kmsg cannot read.
func ParseRequestFrame(frame []byte) (*RequestFrame, error) {
	size, err := frameSize(frame)
	if err != nil {
		return nil, err
	}
	h, used, _, err := decodeRequestHeader(size, frame[SizeLen:])
	if err != nil {
		return nil, err
	}
	f := &RequestFrame{RequestHeader: h, Raw: frame, BodyAt: -1}
	req := kmsg.RequestForKey(int16(h.Key))
	if req == nil || h.Version > req.MaxVersion() {
		return f, nil
	}
	req.SetVersion(h.Version)
	at := SizeLen + used
	if req.IsFlexible() {
		r := kbin.Reader{Src: frame[at:]}
		kmsg.SkipTags(&r)
		if !r.Ok() {
			return nil, malformed("request header tags", int64(len(frame)-at), "bytes: truncated (%s v%d)", kmsg.NameForKey(int16(h.Key)), h.Version)
		}
		at = len(frame) - len(r.Src)
	}
	if err := req.ReadFrom(frame[at:]); err != nil {
		e := malformed("request body", int64(len(frame)-at), "bytes: kmsg cannot read %s v%d", kmsg.NameForKey(int16(h.Key)), h.Version)
		e.Err = err
		return nil, e
	}
	f.BodyAt, f.Body = at, req
	return f, nil
}

// ExpectsResponse is false only for Produce with acks=0, which brokers
// never answer.
func (f *RequestFrame) ExpectsResponse() bool {
	if p, ok := f.Body.(*kmsg.ProduceRequest); ok {
		return p.Acks != 0
	}
	return true
}

// WithBody returns f's frame with its body replaced by body (re-encoded at
// body's version) and the header bytes kept. f.Body must be non-nil.
func (f *RequestFrame) WithBody(body kmsg.Request) []byte {
	out := append([]byte(nil), f.Raw[:f.BodyAt]...)
	out = body.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-SizeLen))
	return out
}

// ResponseHeaderFlexible reports whether the response to f has header v1
// (with tagged fields): when the request version is flexible, except
// ApiVersions, whose response header is always v0 (KIP-511) so a client can
// read it before it knows the broker's versions. False when f.Body is nil.
func (f *RequestFrame) ResponseHeaderFlexible() bool {
	return f.Body != nil && f.Body.IsFlexible() && f.Key != kmsg.ApiVersions
}

// ResponseCorrelationID returns the correlation id of frame, a whole
// response frame. Errors (wrapping ErrMalformed): a size prefix that does not
// match the bytes after it, a frame shorter than size prefix plus
// correlation id.
func ResponseCorrelationID(frame []byte) (int32, error) {
	if _, err := frameSize(frame); err != nil {
		return 0, err
	}
	if len(frame) < SizeLen+MinResponseSize {
		return 0, malformed("response header", int64(len(frame)), "bytes: shorter than size prefix and correlation id")
	}
	return int32(binary.BigEndian.Uint32(frame[SizeLen:])), nil
}

// ResponseBodyAt returns the offset of the body in frame, the whole response
// to f: after the correlation id and, for header v1, the header tags.
// f.Body must be non-nil. Errors wrap ErrMalformed.
func (f *RequestFrame) ResponseBodyAt(frame []byte) (int, error) {
	if _, err := ResponseCorrelationID(frame); err != nil {
		return 0, err
	}
	at := SizeLen + MinResponseSize
	if !f.ResponseHeaderFlexible() {
		return at, nil
	}
	r := kbin.Reader{Src: frame[at:]}
	kmsg.SkipTags(&r)
	if !r.Ok() {
		return 0, malformed("response header tags", int64(len(frame)-at), "bytes: truncated (%s v%d)", kmsg.NameForKey(int16(f.Key)), f.Version)
	}
	return len(frame) - len(r.Src), nil
}

// ParseResponse reads frame, the whole response to f, with kmsg at f's
// version, and returns the body and its offset in frame. f.Body must be
// non-nil. Errors wrap ErrMalformed.
func (f *RequestFrame) ParseResponse(frame []byte) (kmsg.Response, int, error) {
	at, err := f.ResponseBodyAt(frame)
	if err != nil {
		return nil, 0, err
	}
	resp := f.Body.ResponseKind()
	resp.SetVersion(f.Version)
	if err := resp.ReadFrom(frame[at:]); err != nil {
		e := malformed("response body", int64(len(frame)-at), "bytes: kmsg cannot read %s v%d", kmsg.NameForKey(int16(f.Key)), f.Version)
		e.Err = err
		return nil, 0, e
	}
	return resp, at, nil
}

// Response returns a whole response frame answering f with resp: f's
// correlation id, empty header tags for header v1, resp's body at f's
// version (Response sets resp's version to it).
func (f *RequestFrame) Response(resp kmsg.Response) []byte {
	resp.SetVersion(f.Version)
	hdr := binary.BigEndian.AppendUint32(nil, uint32(f.CorrelationID))
	if f.ResponseHeaderFlexible() {
		hdr = append(hdr, 0) // no header tags
	}
	return appendResponse(hdr, resp)
}

// WithResponseBody returns frame, a whole response whose body starts at
// bodyAt, with the body replaced by resp and the header bytes kept.
func WithResponseBody(frame []byte, bodyAt int, resp kmsg.Response) []byte {
	return appendResponse(frame[SizeLen:bodyAt], resp)
}

func appendResponse(hdr []byte, resp kmsg.Response) []byte {
	out := make([]byte, SizeLen, SizeLen+len(hdr)+64)
	out = append(out, hdr...)
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-SizeLen))
	return out
}
