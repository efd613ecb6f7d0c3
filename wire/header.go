package wire

import (
	"encoding/binary"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Request header layout (Kafka protocol guide, "Common Request and Response
// Structure"): after the int32 size prefix come api key int16, api version
// int16, correlation id int32 and client id as a nullable string (int16
// length, -1 for null). Header v2 (flexible versions, as kmsg's IsFlexible
// says) adds tagged fields after the client id. ControlledShutdown v0 has no
// client id (header v0).
const (
	// SizeLen is the length of the size prefix before every frame, bytes.
	SizeLen = 4
	// MinRequestSize is the smallest request frame after the size prefix:
	// api key, api version, correlation id (bytes).
	MinRequestSize = 2 + 2 + 4
	// MinResponseSize is the smallest response frame after the size
	// prefix: the correlation id (bytes).
	MinResponseSize = 4
	// clientIDLenLen is the client id's int16 length.
	clientIDLenLen = 2
)

// RequestHeader is the header of one request frame.
type RequestHeader struct {
	// Size is the frame's size prefix: bytes after the prefix.
	Size int32
	// Key is the API key (kmsg.FindCoordinator, ...); keys kmsg does not
	// know are kept as sent.
	Key kmsg.Key
	// Version is the API version the client chose (>= 0).
	Version int16
	// CorrelationID is the client-chosen id its response echoes.
	CorrelationID int32
	// ClientID is the client id; nil when the client sent null or the
	// header has none (ControlledShutdown v0).
	ClientID *string
}

// Client returns the client id, "" for null.
func (h RequestHeader) Client() string {
	if h.ClientID == nil {
		return ""
	}
	return *h.ClientID
}

// Record returns the Request record of h, read at at by node (-1 if
// unknown) on connection conn.
func (h RequestHeader) Record(at time.Time, node int32, conn uint64) Request {
	return Request{
		Key:           h.Key,
		Version:       h.Version,
		CorrelationID: h.CorrelationID,
		ClientID:      h.Client(),
		Node:          node,
		Conn:          conn,
		Size:          h.Size,
		At:            at,
	}
}

// hasClientID reports whether a request with key and version carries a
// client id in its header: all but ControlledShutdown v0.
func hasClientID(key kmsg.Key, version int16) bool {
	return !(key == kmsg.ControlledShutdown && version == 0)
}

// decodeRequestHeader decodes the header fields (not the header tags) of a
// request frame's content b (after the size prefix; size is the prefix's
// value). It returns the header and the bytes it used; or need > len(b)
// when b is a truncated prefix of the header (only when len(b) < size: a
// header longer than its frame is an error); or an error wrapping
// ErrMalformed.
func decodeRequestHeader(size int32, b []byte) (h RequestHeader, used, need int, err error) {
	if size < MinRequestSize {
		return h, 0, 0, malformed("size", int64(size), "below the %d bytes of a request header's key, version and correlation id", MinRequestSize)
	}
	if len(b) < MinRequestSize {
		return h, 0, MinRequestSize, nil
	}
	h = RequestHeader{
		Size:          size,
		Key:           kmsg.Key(int16(binary.BigEndian.Uint16(b[0:]))),
		Version:       int16(binary.BigEndian.Uint16(b[2:])),
		CorrelationID: int32(binary.BigEndian.Uint32(b[4:])),
	}
	if h.Version < 0 {
		return h, 0, 0, malformed("api version", int64(h.Version), "negative (key %d, %s)", int16(h.Key), kmsg.NameForKey(int16(h.Key)))
	}
	used = MinRequestSize
	if !hasClientID(h.Key, h.Version) {
		return h, used, 0, nil
	}
	if int(size) < used+clientIDLenLen {
		return h, 0, 0, malformed("request header", int64(size), "ends before the client id's length (key %d v%d)", int16(h.Key), h.Version)
	}
	if len(b) < used+clientIDLenLen {
		return h, 0, used + clientIDLenLen, nil
	}
	n := int(int16(binary.BigEndian.Uint16(b[used:])))
	used += clientIDLenLen
	switch {
	case n < -1:
		return h, 0, 0, malformed("client id length", int64(n), "below -1 (null)")
	case n == -1:
		return h, used, 0, nil
	case used+n > int(size):
		return h, 0, 0, malformed("client id length", int64(n), "runs past the frame's %d bytes", size)
	case used+n > len(b):
		return h, 0, used + n, nil
	}
	id := string(b[used : used+n])
	h.ClientID = &id
	return h, used + n, 0, nil
}

// ParseRequestHeader decodes the header fields of frame, a whole request
// frame with its size prefix (header tags and body are not read). Errors
// wrap ErrMalformed: a frame shorter than its size prefix says, a size below
// MinRequestSize, a negative version, a client id running past the frame.
func ParseRequestHeader(frame []byte) (RequestHeader, error) {
	size, err := frameSize(frame)
	if err != nil {
		return RequestHeader{}, err
	}
	h, _, _, err := decodeRequestHeader(size, frame[SizeLen:])
	return h, err
}

// frameSize returns frame's size prefix, checking that frame holds exactly
// that many bytes after it.
func frameSize(frame []byte) (int32, error) {
	if len(frame) < SizeLen {
		return 0, malformed("size", int64(len(frame)), "bytes: shorter than the size prefix")
	}
	size := int32(binary.BigEndian.Uint32(frame))
	if size < 0 || int64(size) != int64(len(frame)-SizeLen) {
		return 0, malformed("size", int64(size), "does not match the %d bytes after the prefix", len(frame)-SizeLen)
	}
	return size, nil
}
