// Package all registers every scheme urlget fetches: import it for its side
// effect,
//
//	import _ "github.com/urlget/urlget/fetch/all"
//
// and a fetch.Client can open any of them.
package all

import (
	_ "github.com/urlget/urlget/fetch/file"
	_ "github.com/urlget/urlget/fetch/ftp"
	_ "github.com/urlget/urlget/fetch/gopher"
	_ "github.com/urlget/urlget/fetch/http"
	_ "github.com/urlget/urlget/fetch/mailto"
	_ "github.com/urlget/urlget/fetch/mid"
	_ "github.com/urlget/urlget/fetch/nntp"
	_ "github.com/urlget/urlget/fetch/prospero"
	_ "github.com/urlget/urlget/fetch/telnet"
	_ "github.com/urlget/urlget/fetch/wais"
)
