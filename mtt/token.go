package mtt

import "fmt"

// Token is a 32-bit memory token (NDK memory region token, verbs lkey/rkey):
// a 24-bit key-table index in the high bits and an 8-bit key in the low bits
// (docs/ndk.md §4 "rkey layout" and §5.3). An access is accepted only if all 32
// bits equal the current token of a valid entry.
type Token uint32

// IndexBits is the width of the index part of a token.
const IndexBits = 24

// IndexMax is the largest index a token can carry.
const IndexMax = 1<<IndexBits - 1

// MakeToken builds a token from an index (< 2^24) and an 8-bit key.
func MakeToken(index uint32, key uint8) Token {
	return Token(index<<8 | uint32(key))
}

// Index is the key-table index the token names.
func (t Token) Index() uint32 { return uint32(t) >> 8 }

// Key is the token's 8-bit key.
func (t Token) Key() uint8 { return uint8(t) }

// String formats the token as index:key.
func (t Token) String() string { return fmt.Sprintf("%#x(%d:%d)", uint32(t), t.Index(), t.Key()) }
