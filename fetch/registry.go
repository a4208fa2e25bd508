package fetch

import "sync"

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
