// Package group holds the request managers of the regular consumer
// (KIP-848): heartbeat and membership, commit, offsets (OffsetFetch and
// ListOffsets for auto.offset.reset) and fetch. It never imports
// managers/share (P5): both build on managers and reactor only.
package group
