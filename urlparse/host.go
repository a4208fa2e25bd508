package urlparse

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// HostError reports a host that cannot be looked up.
type HostError struct {
	Host string // the decoded host
	Msg  string
	Err  error // the IDNA error, if any
}

func (e *HostError) Error() string {
	s := "host " + strconv.Quote(e.Host) + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *HostError) Unwrap() error { return e.Err }

// ErrNoHost is returned by LookupHost for a URL without a host.
var ErrNoHost = errors.New("urlparse: URL has no host")

// LookupHost returns the host in the form to hand to a resolver or dialer:
// an IPv4 address as written, an IPv6 address without brackets, a reg-name
// percent-decoded and, when it holds any non-ASCII byte, converted to ASCII
// (A-labels) with the IDNA Lookup profile (UTS #46 as RFC 5891 §5 uses it).
// A reg-name that is already ASCII is returned unchanged: DNS compares
// names case-insensitively, and the Lookup profile's STD3 rules would
// refuse names such as "my_host" that resolvers accept. It does not allocate
// for an ASCII host. Missing and empty hosts are ErrNoHost; IPvFuture
// literals, names that are not UTF-8 and names IDNA refuses are *HostError.
func (u *URL) LookupHost() (string, error) {
	switch u.HostKind {
	case HostIPv4, HostIPv6:
		return u.Host, nil
	case HostIPvFuture:
		return "", &HostError{Host: u.Host, Msg: "IPvFuture address literals cannot be looked up"}
	case HostRegName:
	default:
		return "", ErrNoHost
	}
	h := u.Host
	if h == "" {
		return "", ErrNoHost
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return h, nil
	}
	a, err := toASCIIHost(h)
	if err != nil {
		return "", err
	}
	return a, nil
}

// toASCIIHost converts a decoded reg-name to A-labels with the IDNA Lookup
// profile: for LookupHost, and for ParseIRI's URI form.
func toASCIIHost(h string) (string, *HostError) {
	if !utf8.ValidString(h) {
		// idna would map the bad bytes to U+FFFD and encode that.
		return "", &HostError{Host: h, Msg: "not valid UTF-8"}
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", &HostError{Host: h, Msg: "not a valid internationalized domain name", Err: err}
	}
	return a, nil
}
