module github.com/urlget/urlget/fetch/ftp/internal/jlaffayecheck

go 1.26.0

require (
	github.com/jlaffaye/ftp v0.2.4
	github.com/urlget/urlget v0.0.0
)

require (
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/urlget/urlget => ../../../..
