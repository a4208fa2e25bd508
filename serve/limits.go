package serve

import "sync"

// limits counts the requests being carried out: per client address, per
// upstream host:port, in all.
type limits struct {
	mu                      sync.Mutex
	perClient, perHost      map[string]int
	total                   int
	maxClient, maxHost, max int
}

func newLimits(o Options) *limits {
	return &limits{perClient: map[string]int{}, perHost: map[string]int{},
		maxClient: o.MaxPerClient, maxHost: o.MaxPerHost, max: o.MaxTotal}
}

// acquire takes a place for a request from client to host, or says which
// limit is reached ("" when a place was taken; release gives it back).
func (l *limits) acquire(client, host string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.total >= l.max:
		return "too many requests at once"
	case l.perClient[client] >= l.maxClient:
		return "too many requests at once from your address"
	case l.perHost[host] >= l.maxHost:
		return "too many requests at once to " + host
	}
	l.total++
	l.perClient[client]++
	l.perHost[host]++
	return ""
}

func (l *limits) release(client, host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.perClient[client]--; l.perClient[client] <= 0 {
		delete(l.perClient, client)
	}
	if l.perHost[host]--; l.perHost[host] <= 0 {
		delete(l.perHost, host)
	}
}
