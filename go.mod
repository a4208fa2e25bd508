module github.com/urlget/urlget

go 1.26.0

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/emersion/go-sasl v0.0.0-20241020182733-b788ff22d5a6
	github.com/klauspost/compress v1.20.5
	github.com/spf13/pflag v1.0.10
	golang.org/x/crypto v0.59.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require golang.org/x/text v0.44.0 // indirect
