module github.com/urlget/urlget/mirror/internal/warccheck

go 1.26.0

require github.com/nlnwa/gowarc/v3 v3.1.0

require (
	github.com/bits-and-blooms/bitset v1.24.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/nlnwa/whatwg-url v0.6.2 // indirect
	golang.org/x/net v0.44.0 // indirect
	golang.org/x/text v0.29.0 // indirect
)
