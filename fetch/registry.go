package fetch

import (
	"sync"

	"github.com/urlget/urlget/urlparse"
)

var (
	regMu    sync.RWMutex
	registry = map[string]Fetcher{}
)

// Register makes f the Fetcher for scheme (lower case). It is meant to be
// called from a scheme package's init; registering a scheme twice panics.
func Register(scheme string, f Fetcher) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[scheme]; dup {
		panic("fetch: scheme registered twice: " + scheme)
	}
	registry[scheme] = f
}

// Lookup returns the Fetcher registered for scheme.
func Lookup(scheme string) (Fetcher, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	f, ok := registry[scheme]
	return f, ok
}

// Schemes lists the registered schemes.
func Schemes() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	s := make([]string, 0, len(registry))
	for k := range registry {
		s = append(s, k)
	}
	return s
}

// A Namer is a Fetcher that knows a better local file name for a URL than
// its last path segment (-O): a wais document URL ends in a DocID, not a
// name.
type Namer interface {
	// FileName returns a local file name for u, already made safe with
	// SafeName, or "" when the URL's last path segment is the name.
	FileName(u *urlparse.URL) string
}

// FileName is the name the Fetcher registered for u's scheme gives u when
// it is a Namer, else "".
func FileName(u *urlparse.URL) string {
	f, ok := Lookup(u.Scheme)
	if !ok {
		return ""
	}
	n, ok := f.(Namer)
	if !ok {
		return ""
	}
	return n.FileName(u)
}
