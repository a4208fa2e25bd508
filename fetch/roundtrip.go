package fetch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	nethttp "net/http"
	"strconv"
	"strings"

	"github.com/urlget/urlget/urlparse"
)

// RoundTripper lets a net/http program fetch the URLs of urlget's other
// schemes: registered on an http.Transport for gopher, ftp, news, wais,
// file, …, it carries out a GET or HEAD with its Client and gives the
// result as an HTTP reply. RegisterProtocols registers it for every scheme
// it serves.
//
//	t := &http.Transport{}
//	fetch.RegisterProtocols(t, &fetch.Client{})
//	resp, err := (&http.Client{Transport: t}).Get("gopher://example.org/0/about")
//
// The reply's status and header come from the result's Meta: 200 with
// Content-Type (when the protocol tells it), Content-Length (when the size
// is known, also as Response.ContentLength) and Last-Modified (when the
// modification time is known). A result that is an HTTP reply already (an
// HTTP proxy gateway's, Meta.IsHTTP) is passed on with its own status and
// header. The body is the Client's Body, streamed: it is never read whole,
// and a body that ends early fails with ErrPartial rather than io.EOF.
//
// A single byte range ("Range: bytes=N-" or "bytes=N-M") on a GET becomes
// the Request.Offset of the fetch; when the scheme resumed there (as
// Meta.Offset says) and the size is known, the reply is 206 with
// Content-Range, and otherwise 200 with the whole resource, which HTTP
// allows a server to send for any Range. Other forms of Range are ignored.
// If-Modified-Since and If-None-Match become the fetch's IfModifiedSince
// and IfNoneMatch: a resource the scheme finds unchanged (ftp's MDTM, a
// file's time) is a 304 reply without a body.
//
// A fetch that fails because the resource is missing (ErrNotFound, or a
// file that does not exist) is a 404 reply, one refused (ErrAccessDenied,
// ErrLoginDenied, or a file that may not be read) a 403, and a
// range past the end (ErrResume) a 416; the reply's body is the error's
// text. Every other failure is no reply at all, so RoundTrip returns the
// *Error, as net/http's contract asks of a failure to obtain a response.
// Methods other than GET and HEAD, and the schemes RegisterProtocols
// leaves out, are refused with an ErrUnsupported *Error.
//
// RoundTrip closes the request's body (none is sent) and does not modify
// the request. The request's context governs the fetch and its body.
type RoundTripper struct {
	Client *Client // nil: a zero Client
}

// RegisterProtocols registers a RoundTripper over c on t for every
// registered scheme that it serves, and returns their names: all but the
// schemes that speak HTTP themselves (t carries those), sessions (telnet)
// and mail (mailto). Like Transport.RegisterProtocol, it panics when t has
// one of them registered already.
func RegisterProtocols(t *nethttp.Transport, c *Client) []string {
	rt := &RoundTripper{Client: c}
	var names []string
	for _, name := range Schemes() {
		if s, _ := LookupScheme(name); bridgeRefusal(s) == "" {
			t.RegisterProtocol(name, rt)
			names = append(names, name)
		}
	}
	return names
}

// bridgeRefusal says why RoundTripper does not serve s, or "" when it does.
func bridgeRefusal(s Scheme) string {
	switch {
	case s.Caps.Has(SpeaksHTTP):
		return "it speaks HTTP itself: use net/http's own transport"
	case s.Caps.Has(Session):
		return "it opens an interactive session"
	case s.Caps.Has(Mail):
		return "it sends mail"
	}
	return ""
}

// RoundTrip fetches req.URL with t.Client. See RoundTripper.
func (t *RoundTripper) RoundTrip(req *nethttp.Request) (*nethttp.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.URL == nil {
		return nil, &Error{Kind: ErrMalformed, Msg: "no URL to fetch"}
	}
	raw := req.URL.String()
	if req.Method != "" && req.Method != nethttp.MethodGet && req.Method != nethttp.MethodHead {
		return nil, &Error{Kind: ErrUnsupported, URL: redactString(raw),
			Msg: "method " + strconv.Quote(req.Method) + " refused: only GET and HEAD reach a " + req.URL.Scheme + ": URL"}
	}
	if s, ok := LookupScheme(req.URL.Scheme); ok {
		if why := bridgeRefusal(s); why != "" {
			return nil, &Error{Kind: ErrUnsupported, URL: redactString(raw),
				Msg: "a " + s.Name + ": URL is not fetched through net/http: " + why}
		}
	}
	u, err := urlparse.ParseIRI(raw)
	if err != nil {
		return nil, malformedURL(raw, err)
	}
	c := t.Client
	if c == nil {
		c = &Client{}
	}
	r := &Request{URL: &u, Head: req.Method == nethttp.MethodHead, IfNoneMatch: req.Header.Get("If-None-Match")}
	if since, err := nethttp.ParseTime(req.Header.Get("If-Modified-Since")); err == nil {
		r.IfModifiedSince = since
	}
	first, last, ranged := int64(0), int64(-1), false
	if !r.Head {
		first, last, ranged = parseRange(req.Header.Get("Range"))
		r.Offset = first
	}
	res, err := c.Do(req.Context(), r)
	if err == nil && res.Offset > 0 && res.Size < 0 && !res.IsHTTP() {
		// A 206 must say where the part ends, which a resumed body of
		// unknown size cannot: fetch the whole resource instead.
		res.Body.Close()
		r.Offset, ranged = 0, false
		res, err = c.Do(req.Context(), r)
	}
	if err != nil {
		return errorResponse(req, err)
	}
	resp := &nethttp.Response{
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		StatusCode:    nethttp.StatusOK,
		Header:        nethttp.Header{},
		Body:          res.Body,
		ContentLength: res.Size,
		Request:       req,
	}
	for _, f := range res.Fields() {
		resp.Header.Add(f.Name, f.Value)
	}
	if res.IsHTTP() {
		resp.StatusCode = res.Status
		if res.Reason != "" {
			resp.Status = strconv.Itoa(res.Status) + " " + res.Reason
		}
	} else {
		if res.NotModified {
			res.Body.Close()
			resp.StatusCode, resp.Body, resp.ContentLength = nethttp.StatusNotModified, nethttp.NoBody, 0
		} else if ranged && res.Offset > 0 {
			total := res.Offset + res.Size
			if res.Offset >= total {
				res.Body.Close()
				return errorResponse(req, &Error{Kind: ErrResume, URL: Redacted(&u),
					Msg: fmt.Sprintf("range starts at %d, past the end of the resource (%d bytes)", res.Offset, total)})
			}
			if last < 0 || last >= total {
				last = total - 1
			}
			resp.StatusCode = nethttp.StatusPartialContent
			resp.ContentLength = last - res.Offset + 1
			resp.Header.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", res.Offset, last, total))
			if resp.ContentLength < res.Size {
				resp.Body = limitedBody{io.LimitReader(res.Body, resp.ContentLength), res.Body}
			}
		}
		if resp.ContentLength >= 0 {
			resp.Header.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		}
	}
	if resp.Status == "" {
		resp.Status = strconv.Itoa(resp.StatusCode) + " " + nethttp.StatusText(resp.StatusCode)
	}
	if r.Head {
		res.Body.Close()
		resp.Body = nethttp.NoBody
	}
	return resp, nil
}

// limitedBody is the part of a body a closed byte range asks for.
type limitedBody struct {
	io.Reader
	io.Closer
}

// parseRange reads a Range header of one byte range from a first byte on
// ("bytes=N-", last -1) or between two ("bytes=N-M"); any other form,
// which RoundTripper ignores, gives ok false.
func parseRange(h string) (first, last int64, ok bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	spec = strings.TrimSpace(spec)
	if !found || !strings.Contains(spec, "-") || strings.Contains(spec, ",") {
		return 0, -1, false
	}
	r, err := ParseRange(spec)
	if err != nil || r.Last > 0 {
		return 0, -1, false
	}
	return r.Start, r.End, true
}

// errorResponse is the reply for a fetch that failed with err: a status
// for the kinds that are the server's answer (and for a local file that
// is missing or may not be read, ErrFileRead), else err itself.
func errorResponse(req *nethttp.Request, err error) (*nethttp.Response, error) {
	var code int
	switch k := KindOf(err); {
	case k == ErrNotFound, errors.Is(err, fs.ErrNotExist):
		code = nethttp.StatusNotFound
	case k == ErrAccessDenied, k == ErrLoginDenied, errors.Is(err, fs.ErrPermission):
		code = nethttp.StatusForbidden
	case k == ErrResume:
		code = nethttp.StatusRequestedRangeNotSatisfiable
	default:
		return nil, err
	}
	msg := err.Error() + "\n"
	resp := &nethttp.Response{
		Status:     strconv.Itoa(code) + " " + nethttp.StatusText(code),
		StatusCode: code,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: nethttp.Header{
			"Content-Type":   {"text/plain; charset=utf-8"},
			"Content-Length": {strconv.Itoa(len(msg))},
		},
		Body:          io.NopCloser(strings.NewReader(msg)),
		ContentLength: int64(len(msg)),
		Request:       req,
	}
	if req.Method == nethttp.MethodHead {
		resp.Body = nethttp.NoBody
	}
	return resp, nil
}
