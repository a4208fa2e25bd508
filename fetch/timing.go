package fetch

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Timing is what a Trace recorded of one transfer, as curl_easy_getinfo
// reports it (curl's -w time_* and address variables): each time is
// counted from Start and is that of the last request when redirects were
// followed; a time that never came is 0.
type Timing struct {
	Start         time.Time
	NameLookup    time.Duration // the host name was resolved
	Connect       time.Duration // the connection was open
	AppConnect    time.Duration // the TLS handshake was done
	PreTransfer   time.Duration // the request was about to be sent
	StartTransfer time.Duration // the first byte of the reply came
	Redirect      time.Duration // the last redirect was followed
	// Local and Remote are the addresses of the connection the request
	// went on (a kept one too).
	Local, Remote net.Addr
	Connects      int   // connections opened (data connections too)
	Certs         int   // certificates the TLS peer sent
	Uploaded      int64 // bytes of Request.Body sent
}

// A Timer fills in Timings from the events of the requests made under
// its Context: one Timer serves a run of transfers made one after the
// other, Begin pointing it at the next transfer's Timing; transfers made
// at once take a Timer each (a kept connection reports each request's
// exchanges to that request's Trace: Retrace).
type Timer struct {
	mu  sync.Mutex
	cur *Timing
}

// Begin starts t (Start now, everything else zero) and records the events
// from now on into it.
func (tm *Timer) Begin(t *Timing) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	*t = Timing{Start: time.Now()}
	tm.cur = t
}

// End stops recording into t: events from now on (a kept connection
// closing) are no one's.
func (tm *Timer) End(t *Timing) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.cur == t {
		tm.cur = nil
	}
}

// Context is ctx with the Trace the Timer records from (WithTrace).
func (tm *Timer) Context(ctx context.Context) context.Context {
	now := func(f func(t *Timing, d time.Duration)) {
		tm.mu.Lock()
		if tm.cur != nil {
			f(tm.cur, time.Since(tm.cur.Start))
		}
		tm.mu.Unlock()
	}
	// set sets a time not set since the last redirect: the times are of
	// the last request, counted from the start, as curl's.
	set := func(t *Timing, f *time.Duration, d time.Duration) bool {
		if *f == 0 || *f < t.Redirect {
			*f = d
			return true
		}
		return false
	}
	return WithTrace(ctx, &Trace{
		DNSDone: func(string, []netip.Addr) {
			now(func(t *Timing, d time.Duration) { set(t, &t.NameLookup, d) })
		},
		Connected: func(local, remote net.Addr, data bool) {
			now(func(t *Timing, d time.Duration) {
				t.Connects++
				if data {
					return
				}
				set(t, &t.NameLookup, d) // an address literal: nothing to look up
				if set(t, &t.Connect, d) {
					t.Local, t.Remote = local, remote
				}
			})
		},
		TLSDone: func(st tls.ConnectionState) {
			now(func(t *Timing, d time.Duration) {
				if set(t, &t.AppConnect, d) {
					t.Certs = len(st.PeerCertificates)
				}
			})
		},
		WroteRequest: func(local, remote net.Addr) {
			now(func(t *Timing, d time.Duration) {
				if set(t, &t.PreTransfer, d) {
					t.Local, t.Remote = local, remote // a kept connection too
				}
			})
		},
		FirstByte: func() {
			now(func(t *Timing, d time.Duration) {
				if t.PreTransfer >= t.Redirect {
					set(t, &t.StartTransfer, d)
				}
			})
		},
		Redirect: func(string) {
			now(func(t *Timing, d time.Duration) { t.Redirect = d })
		},
		BodySent: func(n int) {
			now(func(t *Timing, _ time.Duration) { t.Uploaded += int64(n) })
		},
	})
}

// AddrPort is a's IP address (IPv4-mapped addresses unmapped) and port;
// ok is false when a is nil or not an IP address and port.
func AddrPort(a net.Addr) (ip string, port int, ok bool) {
	if a == nil {
		return "", 0, false
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return "", 0, false
	}
	return ap.Addr().Unmap().String(), int(ap.Port()), true
}

// RedirectURL is where a redirect not followed would have gone: the
// Location of an HTTP 301, 302, 303, 307 or 308, else "".
func (m *Meta) RedirectURL() string {
	switch m.Status {
	case 301, 302, 303, 307, 308:
		if m.IsHTTP() {
			return m.Location
		}
	}
	return ""
}

// HTTPVersion is the HTTP version of the reply as curl gives it: "1",
// "1.1", "2", "3"; "0" when it is not an HTTP reply.
func (m *Meta) HTTPVersion() string {
	v, ok := strings.CutPrefix(m.Proto, "HTTP/")
	if !ok {
		return "0"
	}
	return strings.TrimSuffix(v, ".0")
}

// Fields is the reply's header as HTTP header fields: an HTTP reply's own
// Header; for every other protocol the metadata, Content-Length when the
// size is known, Content-Type when the protocol tells it and
// Last-Modified (in HTTP's date format) when known.
func (m *Meta) Fields() Header {
	if m.IsHTTP() {
		return m.Header
	}
	var h Header
	if m.Size >= 0 {
		h = append(h, HeaderField{Name: "Content-Length", Value: strconv.FormatInt(m.Size, 10)})
	}
	if m.ContentType != "" {
		h = append(h, HeaderField{Name: "Content-Type", Value: m.ContentType})
	}
	if !m.ModTime.IsZero() {
		h = append(h, HeaderField{Name: "Last-Modified", Value: m.ModTime.UTC().Format(http.TimeFormat)})
	}
	return h
}

// HeaderSize counts the bytes of the HTTP header blocks received, those
// of the redirects followed and of AuthReplies included (Replies): status
// lines, fields, CRLFs; the proxy's CONNECT replies and the interim (1xx)
// heads as received.
func (m *Meta) HeaderSize() int64 {
	var n int64
	for _, r := range m.Replies() {
		if r.Tunnel != nil {
			n += int64(len(r.Tunnel.Head))
		}
		n += int64(len(r.Interim))
		if !r.IsHTTP() {
			continue
		}
		n += int64(len(r.Proto) + len(" 200 ") + len(r.Reason) + 2 + 2)
		for _, f := range r.Header {
			n += int64(len(f.Name) + 2 + len(f.Value) + 2)
		}
	}
	return n
}
