package http

import (
	"context"
	"errors"
	"io"
	"maps"
	nethttp "net/http"
	"slices"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/digest"
	"github.com/urlget/urlget/internal/ntlm"
)

// sendAuth is what one request of an authentication exchange carries
// beyond its Request: the Authorization and Proxy-Authorization values
// (empty: none, or what open sends by itself), and the pinned connection
// of an NTLM exchange.
type sendAuth struct {
	authz, proxyAuthz string
	pin               *pin
}

// pin keeps the requests of an NTLM exchange on one connection, which
// NTLM authenticates (not the requests): a Transport of the exchange's
// own, one connection at most, closed when the exchange's result is.
// Once a challenge is to be answered (hold), the Transport may not dial
// again: the answer would go on a connection the server has not
// challenged.
type pin struct {
	tr   *nethttp.Transport
	d    *dialer
	v    io.Writer
	hold bool
}

// mayDial is the dialer's check: an error once the exchange holds.
func (p *pin) mayDial() error {
	if p != nil && p.hold {
		return &fetch.Error{Kind: fetch.ErrRecv, Msg: "the server closed the connection in the middle of NTLM authentication"}
	}
	return nil
}

func (p *pin) close() {
	if p != nil && p.tr != nil {
		p.tr.CloseIdleConnections()
	}
}

// closePin closes the pinned connection with the body of the result.
type closePin struct {
	io.ReadCloser
	p *pin
}

func (c *closePin) Close() error {
	err := c.ReadCloser.Close()
	c.p.close()
	return err
}

// Stages of one side of an exchange (authSide).
const (
	stageNone   = iota // nothing sent yet (Digest, AnyAuth)
	stageNTLM1         // the NEGOTIATE message went
	stageDigest        // a Digest answer went: only a stale nonce is answered again
	stageDone          // answered: a further challenge is the result
)

// authSide is the state of the server's (401, WWW-Authenticate) or the
// proxy's (407, Proxy-Authenticate) side of an exchange.
type authSide struct {
	status         int
	field          string
	user, password string
	digest, any    bool
	ntlm           bool
	stage          int
	value          string // sent with the next request
	once           bool   // value goes once: NTLM authenticates the connection, not each request
	stale          int
}

// start is the side's first value: NTLM's NEGOTIATE message, or nothing.
func (s *authSide) start() {
	if s.ntlm && !s.any {
		s.value, s.stage = ntlm.NegotiateField(), stageNTLM1
	}
}

// step answers the side's challenge in h (a reply of s.status) for a
// request with method to uri: whether there is an answer (in s.value) to
// send. closing says the reply's connection ends with it.
func (s *authSide) step(h fetch.Header, method, uri string, closing bool) bool {
	switch s.stage {
	case stageNone:
		if s.digest || s.any {
			if ch, ok := challengeIn(h, s.field); ok {
				authz, err := ch.Answer(s.user, s.password, method, uri, digest.NewCnonce())
				if err != nil {
					return false // curl: "Authentication problem. Ignoring this."
				}
				s.value, s.stage = authz, stageDigest
				return true
			}
		}
		if (s.ntlm || s.any) && offers(h, s.field, "NTLM") {
			s.value, s.stage = ntlm.NegotiateField(), stageNTLM1
			return true
		}
		if s.any && offers(h, s.field, "Basic") {
			s.value, s.stage = fetch.BasicAuth(s.user, s.password), stageDone
			return true
		}
	case stageNTLM1:
		if closing {
			return false // the challenge's connection is gone: curl stops too
		}
		if v, ok := ntlm.AnswerField(h.Values(s.field), s.user, s.password); ok {
			s.value, s.stage, s.once = v, stageDone, true
			return true
		}
	case stageDigest:
		if ch, ok := challengeIn(h, s.field); ok && ch.Stale() && s.stale < maxStale {
			s.stale++
			authz, err := ch.Answer(s.user, s.password, method, uri, digest.NewCnonce())
			if err == nil {
				s.value = authz
				return true
			}
		}
	}
	return false
}

// openAuth is Open with an authentication exchange, as curl's --digest,
// --ntlm, --anyauth, --proxy-ntlm and --proxy-anyauth do it.
//
// Server side: with Request.Digest the first request goes without
// credentials; a 401 whose first Digest challenge can be answered
// (algorithm MD5, SHA-256 or SHA-512-256, each also "-sess"; qop "auth",
// or none) is answered with the request again, nc 00000001 and a fresh
// cnonce; a 401 to that answer is the result, unless it says stale=true,
// when the new nonce is answered. With Request.NTLM the first request
// carries NTLM's NEGOTIATE message, and the 401's challenge is answered
// by the AUTHENTICATE message on the same connection (pin); the reply to
// that is the result. With Request.AnyAuth the first request goes
// without credentials and its 401 is answered by Digest when offered,
// else NTLM, else Basic. The proxy side (an http URL or a gateway
// request through an HTTP proxy; CONNECT is fetch.DialTunnel's) is the
// same with 407 and the Proxy's credentials, for Request.ProxyNTLM,
// ProxyDigest and ProxyAnyAuth.
//
// A request with a body goes first as a probe, "Content-Length: 0" (so
// does one carrying a NEGOTIATE message), but with Request.AnyAuth or
// ProxyAnyAuth, as curl's, it goes with its body; a probe answered 2xx is sent
// again with its body, without credentials. A body sent a second time
// comes from Request.GetBody; without it, the reply that would need it is
// the result. Any other reply is the result; the replies before it are
// its AuthReplies. A server that answers HTTP/1.0 is spoken to in
// HTTP/1.0 from then on, as curl does: a body of unknown length sent
// before cannot go again (ErrUpload, curl's 25).
func (f Fetcher) openAuth(ctx context.Context, req *fetch.Request, srvOn, prxOn bool) (*fetch.Resource, error) {
	srv := authSide{status: 401, field: "WWW-Authenticate"}
	if srvOn {
		srv.user, srv.password = req.User, req.Password
		srv.digest, srv.any, srv.ntlm = req.Digest, req.AnyAuth, req.NTLM
	}
	prx := authSide{status: 407, field: "Proxy-Authenticate"}
	if prxOn {
		prx.user, prx.password = req.Proxy.User, req.Proxy.Password
		prx.any, prx.ntlm, prx.digest = req.ProxyAnyAuth, req.ProxyNTLM, req.ProxyDigest
	}
	srv.start()
	prx.start()
	var p *pin
	if srv.stage == stageNTLM1 || prx.stage == stageNTLM1 {
		p = &pin{}
	}
	handed := false // the pinned connection closes with the result's body
	defer func() {
		if !handed {
			p.close()
		}
	}()
	var probe *fetch.Request
	makeProbe := func() {
		if req.Body != nil {
			pr := *req
			pr.Body, pr.BodySize, pr.GetBody = strings.NewReader(""), 0, nil
			pr.Options = noExpect(req.Options).With(optProbe, "1")
			probe = &pr
		}
	}
	makeProbe()
	// With --anyauth (--proxy-anyauth) the first request goes with its
	// body, as curl's: it does not know yet that credentials are wanted.
	firstProbe := probe != nil && !(srvOn && req.AnyAuth) && !(prxOn && req.ProxyAnyAuth)
	var asked []fetch.Meta
	sent := false // the body has gone once: another send needs GetBody
	first := true
	// send sends the request with the sides' values; ok false: it could
	// not be sent (a body that cannot be sent twice), res stays the result.
	send := func(res *fetch.Resource) (*fetch.Resource, bool, error) {
		if res != nil && res.Proto == "HTTP/1.0" && req.Options.String(OptVersion) != version10 {
			// curl speaks HTTP/1.0 to a server that answered so, for
			// the rest of the exchange (no Expect then: expects).
			down := *req
			down.Options = maps.Clone(req.Options)
			if down.Options == nil {
				down.Options = fetch.Options{}
			}
			down.Options[OptVersion] = version10
			req = &down
			makeProbe()
		}
		r := req
		ntlm1 := srv.stage == stageNTLM1 && srv.value != "" || prx.stage == stageNTLM1 && prx.value != ""
		switch {
		case probe != nil && (first && firstProbe || ntlm1):
			r = probe
		case sent && req.Body != nil:
			if req.BodySize < 0 && req.Options.String(OptVersion) == version10 {
				// Spoken to in HTTP/1.0 now, which cannot frame it:
				// curl's "upload failed" too, whether or not it could
				// be read again.
				fetch.DrainClose(res.Body)
				asked = append(asked, res.Meta)
				return nil, false, errUnknownLength10()
			}
			if req.GetBody == nil {
				return res, false, nil
			}
			body, err := req.GetBody()
			if err != nil {
				return res, false, nil
			}
			again := *req
			again.Body = body
			r = &again
		}
		if res != nil {
			fetch.DrainClose(res.Body)
			asked = append(asked, res.Meta)
		}
		if r == req && req.Body != nil {
			sent = true
		}
		first = false
		out, err := f.open(ctx, r, sendAuth{authz: srv.value, proxyAuthz: prx.value, pin: p})
		for _, s := range []*authSide{&srv, &prx} {
			if s.once {
				s.value, s.once = "", false
			}
		}
		return out, err == nil, err
	}
	res, _, err := send(nil)
	probed := firstProbe
	for err == nil {
		var side *authSide
		switch {
		case res.Status == 407 && prxOn:
			side = &prx
		case res.Status == 401 && srvOn:
			side = &srv
		case res.Status/100 == 2 && probed:
			srv.value, prx.value = "", ""
			probed = false
			var ok bool
			if res, ok, err = send(res); ok && p != nil {
				p.hold = false
			}
			continue
		}
		probed = false
		if side == nil {
			break
		}
		wasNTLM1 := side.stage == stageNTLM1
		if !side.step(res.Header, req.Method(), requestTarget(req), closes(res.Meta)) {
			break
		}
		if side.stage == stageNTLM1 && p == nil {
			p = &pin{}
		}
		if p != nil {
			p.hold = wasNTLM1 // an AUTHENTICATE message goes on the challenged connection
		}
		probed = side.stage == stageNTLM1 && probe != nil
		var ok bool
		if res, ok, err = send(res); !ok {
			break
		}
		if p != nil {
			p.hold = false
		}
	}
	if err != nil {
		return nil, withAuthReplies(err, asked)
	}
	if p != nil && p.tr != nil {
		res.Body = &closePin{ReadCloser: res.Body, p: p}
		handed = true
	}
	res.AuthReplies = asked
	return res, nil
}

// withAuthReplies is err, a request's after the replies asked (AuthReplies)
// came, with them in its Reply, to be shown (curl's -i, -D) as they came.
func withAuthReplies(err error, asked []fetch.Meta) error {
	var fe *fetch.Error
	if len(asked) == 0 || !errors.As(err, &fe) {
		return err
	}
	e := *fe
	reply := fetch.Meta{Size: -1}
	if e.Reply != nil {
		reply = *e.Reply
	}
	reply.AuthReplies = append(slices.Clip(asked), reply.AuthReplies...)
	e.Reply = &reply
	return &e
}

// closes reports whether a reply's connection ends with it (RFC 9112
// §9.3): "Connection: close", or HTTP/1.0 without keep-alive.
func closes(m fetch.Meta) bool {
	keep := false
	for _, v := range m.Header.Values("Connection") {
		for t := range strings.SplitSeq(v, ",") {
			switch t = strings.TrimSpace(t); {
			case strings.EqualFold(t, "close"):
				return true
			case strings.EqualFold(t, "keep-alive"):
				keep = true
			}
		}
	}
	return m.Proto == "HTTP/1.0" && !keep
}

// challengeIn is the first Digest challenge of the field named.
func challengeIn(h fetch.Header, field string) (digest.Challenge, bool) {
	return digest.Find(h.Values(field))
}

// offers reports whether a challenge field offers scheme.
func offers(h fetch.Header, field, scheme string) bool {
	return fetch.OffersScheme(h.Values(field), scheme)
}
