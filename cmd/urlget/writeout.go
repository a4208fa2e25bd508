package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	fhttp "github.com/urlget/urlget/fetch/http"
)

// -w/--write-out, as curl: the format is printed after each transfer, with
// %{name} replaced by the variable's value, %header{name} by a response
// header's, "%%" by "%", and "\n", "\r", "\t" by newline, carriage return
// and tab. %{stdout} and %{stderr} switch the rest of the output to that
// stream. An unknown variable prints a warning on stderr and nothing else.
// The times, addresses and upload size come from a fetch.Trace (woTrace).

// woVar is one write-out variable.
type woVar struct {
	text func(r *xferResult) string // its value in the format
	json func(r *xferResult) any    // its value in %{json}; nil: JSON string of text
}

var woVars = map[string]woVar{
	"url":                {text: func(r *xferResult) string { return r.url }},
	"url_effective":      {text: func(r *xferResult) string { return r.effective }},
	"http_code":          {text: woCode, json: func(r *xferResult) any { return r.status }},
	"response_code":      {text: woCode, json: func(r *xferResult) any { return r.status }},
	"size_download":      {text: func(r *xferResult) string { return strconv.FormatInt(r.size, 10) }, json: func(r *xferResult) any { return r.size }},
	"speed_download":     {text: func(r *xferResult) string { return strconv.FormatInt(woSpeed(r), 10) }, json: func(r *xferResult) any { return woSpeed(r) }},
	"time_total":         {text: func(r *xferResult) string { return woSeconds(r.elapsed) }, json: func(r *xferResult) any { return json.Number(woSeconds(r.elapsed)) }},
	"content_type":       {text: func(r *xferResult) string { return r.contentType }, json: func(r *xferResult) any { return woNull(r.contentType) }},
	"filename_effective": {text: func(r *xferResult) string { return r.filename }, json: func(r *xferResult) any { return woNull(r.filename) }},
	"exitcode":           {text: func(r *xferResult) string { return strconv.Itoa(r.code) }, json: func(r *xferResult) any { return r.code }},
	"errormsg":           {text: woErr, json: func(r *xferResult) any { return woNull(woErr(r)) }},
	"scheme":             {text: woScheme, json: func(r *xferResult) any { return woNull(woScheme(r)) }},
	"urlnum":             {text: func(r *xferResult) string { return strconv.Itoa(r.num) }, json: func(r *xferResult) any { return r.num }},

	"time_namelookup":    woTime(func(t *woTimes) time.Duration { return t.namelookup }),
	"time_connect":       woTime(func(t *woTimes) time.Duration { return t.connect }),
	"time_appconnect":    woTime(func(t *woTimes) time.Duration { return t.appconnect }),
	"time_pretransfer":   woTime(func(t *woTimes) time.Duration { return t.pretransfer }),
	"time_starttransfer": woTime(func(t *woTimes) time.Duration { return t.starttransfer }),
	"time_redirect":      woTime(func(t *woTimes) time.Duration { return t.redirect }),
	"remote_ip":          {text: func(r *xferResult) string { return woIP(r.times.remote) }},
	"remote_port":        woInt(func(r *xferResult) int64 { return woPort(r.times.remote) }),
	"local_ip":           {text: func(r *xferResult) string { return woIP(r.times.local) }},
	"local_port":         woInt(func(r *xferResult) int64 { return woPort(r.times.local) }),
	"num_connects":       woInt(func(r *xferResult) int64 { return int64(r.times.connects) }),
	// As curl counts it: an HTTP Digest exchange's 401s too.
	"num_redirects": woInt(func(r *xferResult) int64 { return int64(len(r.meta.Replies()) - 1) }),
	"num_headers":   woInt(func(r *xferResult) int64 { return int64(len(r.meta.Header)) }),
	"redirect_url":  {text: woRedirectURL, json: func(r *xferResult) any { return woNull(woRedirectURL(r)) }},
	"http_version":  {text: woHTTPVersion},
	"method":        {text: func(r *xferResult) string { return r.times.method }},
	"size_upload":   woInt(func(r *xferResult) int64 { return r.times.uploaded }),
	"speed_upload":  woInt(func(r *xferResult) int64 { return woPer(r.times.uploaded, r.elapsed) }),
	"size_header":   woInt(woSizeHeader),
	"size_request":  woInt(func(r *xferResult) int64 { return r.times.requested }),
	// curl's, for TLS details and features urlget does not report: the
	// value curl gives when they are not in use.
	"certs":                   {text: func(*xferResult) string { return "" }},
	"num_certs":               woInt(func(r *xferResult) int64 { return int64(r.times.certs) }),
	"ssl_verify_result":       woInt(func(*xferResult) int64 { return 0 }),
	"proxy_ssl_verify_result": woInt(func(*xferResult) int64 { return 0 }),
	"http_connect":            woInt(func(*xferResult) int64 { return 0 }),
	"ftp_entry_path":          {text: func(*xferResult) string { return "" }, json: func(*xferResult) any { return nil }},
	"referer":                 {text: func(r *xferResult) string { return "" }, json: func(*xferResult) any { return nil }},
	"curl_version":            {text: func(*xferResult) string { return "urlget/" + version }},
}

// woScheme is the scheme of the connection made, upper case (curl): none
// when none could be.
func woScheme(r *xferResult) string {
	switch fetch.KindOf(r.err) {
	case fetch.ErrResolve, fetch.ErrConnect, fetch.ErrInterface:
		if r.err != nil {
			return ""
		}
	}
	return strings.ToUpper(r.scheme)
}

func woTime(f func(*woTimes) time.Duration) woVar {
	return woVar{text: func(r *xferResult) string { return woSeconds(f(&r.times)) },
		json: func(r *xferResult) any { return json.Number(woSeconds(f(&r.times))) }}
}

func woInt(f func(*xferResult) int64) woVar {
	return woVar{text: func(r *xferResult) string { return strconv.FormatInt(f(r), 10) },
		json: func(r *xferResult) any { return f(r) }}
}

func woIP(a net.Addr) string {
	if ap, err := netip.ParseAddrPort(addrString(a)); err == nil {
		return ap.Addr().Unmap().String()
	}
	return ""
}

func woPort(a net.Addr) int64 {
	if ap, err := netip.ParseAddrPort(addrString(a)); err == nil {
		return int64(ap.Port())
	}
	return 0
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// woRedirectURL is where a redirect not followed would have gone.
func woRedirectURL(r *xferResult) string {
	switch r.meta.Status {
	case 301, 302, 303, 307, 308:
		if r.meta.IsHTTP() {
			return r.meta.Location
		}
	}
	return ""
}

// woHTTPVersion is curl's: "1", "1.1", "2", "3"; "0" without an HTTP reply.
func woHTTPVersion(r *xferResult) string {
	v, ok := strings.CutPrefix(r.meta.Proto, "HTTP/")
	if !ok {
		return "0"
	}
	return strings.TrimSuffix(v, ".0")
}

// woSizeHeader counts the bytes of the HTTP header blocks received, the
// redirects' included: status line, fields, CRLFs.
func woSizeHeader(r *xferResult) int64 {
	var n int64
	for _, m := range r.meta.Replies() {
		if !m.IsHTTP() {
			continue
		}
		n += int64(len(m.Proto) + len(" 200 ") + len(m.Reason) + 2 + 2)
		for _, f := range m.Header {
			n += int64(len(f.Name) + 2 + len(f.Value) + 2)
		}
	}
	return n
}

// woHeader is %header{name}: the values of the fields named name, joined
// with ", " (curl).
func woHeader(r *xferResult, name string) string {
	var vs []string
	for _, f := range r.meta.Header {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return strings.Join(vs, ", ")
}

// woHeaderJSON is %{header_json}: the last reply's fields, names in lower
// case, each with the array of its values, in the order of the first of
// each, laid out as curl lays it out.
func woHeaderJSON(r *xferResult) string {
	var names []string
	values := map[string][]string{}
	for _, f := range r.meta.Header {
		k := strings.ToLower(f.Name)
		if _, ok := values[k]; !ok {
			names = append(names, k)
		}
		values[k] = append(values[k], f.Value)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteString(",\n")
		}
		woJSONValue(&b, k)
		b.WriteByte(':')
		woJSONValue(&b, values[k])
	}
	b.WriteString("\n}")
	return b.String()
}

func woCode(r *xferResult) string { return fmt.Sprintf("%03d", r.status) }

func woErr(r *xferResult) string {
	if r.err == nil {
		return ""
	}
	return oneLine(r.err.Error())
}

func woSpeed(r *xferResult) int64 { return woPer(r.size, r.elapsed) }

func woPer(n int64, d time.Duration) int64 {
	if s := d.Seconds(); s > 0 {
		return int64(float64(n) / s)
	}
	return 0
}

func woSeconds(d time.Duration) string { return fmt.Sprintf("%.6f", d.Seconds()) }

func woNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// woPiece is a parsed part of the format: literal text, a variable, or a
// stream switch.
type woPiece struct {
	lit    string
	name   string // variable name, "json", or "" for a literal
	stream string // "stdout" or "stderr" for a switch
	header string // %header{name}
}

type writeOut struct {
	pieces []woPiece
	trace  woTrace
}

// parseWriteOut parses a -w format.
func parseWriteOut(format string) *writeOut {
	w := &writeOut{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			w.pieces = append(w.pieces, woPiece{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%' && i+1 < len(format) && format[i+1] == '%':
			lit.WriteByte('%')
			i++
		case c == '%' && strings.HasPrefix(format[i:], "%header{") && strings.IndexByte(format[i+8:], '}') >= 0:
			end := strings.IndexByte(format[i+8:], '}')
			flush()
			w.pieces = append(w.pieces, woPiece{header: format[i+8 : i+8+end]})
			i += 8 + end
		case c == '%' && i+1 < len(format) && format[i+1] == '{':
			end := strings.IndexByte(format[i+2:], '}')
			if end < 0 {
				lit.WriteString(format[i:])
				i = len(format)
				continue
			}
			name := format[i+2 : i+2+end]
			flush()
			switch name {
			case "stdout", "stderr":
				w.pieces = append(w.pieces, woPiece{stream: name})
			default:
				w.pieces = append(w.pieces, woPiece{name: name})
			}
			i += 2 + end
		case c == '\\' && i+1 < len(format):
			switch format[i+1] {
			case 'n':
				lit.WriteByte('\n')
			case 'r':
				lit.WriteByte('\r')
			case 't':
				lit.WriteByte('\t')
			default:
				lit.WriteString(format[i : i+2])
			}
			i++
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return w
}

// render prints the format for one transfer.
func (w *writeOut) render(stdout, stderr io.Writer, r *xferResult) {
	// Events from now on (a kept connection closing) are no one's.
	w.trace.mu.Lock()
	if w.trace.cur == &r.times {
		w.trace.cur = nil
	}
	w.trace.mu.Unlock()
	out := stdout
	var b strings.Builder
	emit := func() {
		if b.Len() > 0 {
			io.WriteString(out, b.String())
			b.Reset()
		}
	}
	for _, p := range w.pieces {
		switch {
		case p.stream == "stdout":
			emit()
			out = stdout
		case p.stream == "stderr":
			emit()
			out = stderr
		case p.header != "":
			b.WriteString(woHeader(r, p.header))
		case p.name == "json":
			b.WriteString(woJSON(r))
		case p.name == "header_json":
			b.WriteString(woHeaderJSON(r))
		case p.name != "":
			v, ok := woVars[p.name]
			if !ok {
				emit()
				fmt.Fprintf(stderr, "urlget: unknown --write-out variable: '%s'\n", p.name)
				continue
			}
			b.WriteString(v.text(r))
		default:
			b.WriteString(p.lit)
		}
	}
	emit()
}

// woJSONValue writes v as JSON, without escaping <, > and & (as curl).
func woJSONValue(b *strings.Builder, v any) {
	var tmp strings.Builder
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	b.WriteString(strings.TrimSuffix(tmp.String(), "\n"))
}

// woJSON is %{json}: every variable in one JSON object, keys sorted but
// curl_version, last (as curl).
func woJSON(r *xferResult) string {
	names := make([]string, 0, len(woVars))
	for k := range woVars {
		if k != "curl_version" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	names = append(names, "curl_version")
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		v := woVars[k]
		var val any
		if v.json != nil {
			val = v.json(r)
		} else {
			val = v.text(r)
		}
		woJSONValue(&b, k)
		b.WriteByte(':')
		woJSONValue(&b, val)
	}
	b.WriteByte('}')
	return b.String()
}

// woTimes is what the trace of one transfer recorded (-w): times since the
// attempt began, the connection's addresses, the request.
type woTimes struct {
	start                                        time.Time
	namelookup, connect, appconnect, pretransfer time.Duration
	starttransfer, redirect                      time.Duration
	local, remote                                net.Addr
	connects, certs                              int
	uploaded, requested                          int64
	method                                       string
}

// woTrace records the fetch.Trace events of the current transfer into
// its xferResult. One Trace serves every transfer (a connection kept from
// one URL to the next reports to the Trace that opened it); start points
// it at the next.
type woTrace struct {
	mu  sync.Mutex
	cur *woTimes
}

// traceContext is ctx with the trace -w reads; ctx itself without -w.
func (w *writeOut) traceContext(ctx context.Context) context.Context {
	if w == nil {
		return ctx
	}
	t := &w.trace
	now := func(f func(c *woTimes, d time.Duration)) {
		t.mu.Lock()
		if t.cur != nil {
			f(t.cur, time.Since(t.cur.start))
		}
		t.mu.Unlock()
	}
	// set sets a time not set since the last redirect: the times are of
	// the last request, counted from the start, as curl's.
	set := func(c *woTimes, f *time.Duration, d time.Duration) bool {
		if *f == 0 || *f < c.redirect {
			*f = d
			return true
		}
		return false
	}
	return fetch.WithTrace(ctx, &fetch.Trace{
		DNSDone: func(string, []netip.Addr) {
			now(func(c *woTimes, d time.Duration) { set(c, &c.namelookup, d) })
		},
		Connected: func(local, remote net.Addr, data bool) {
			now(func(c *woTimes, d time.Duration) {
				c.connects++
				if data {
					return
				}
				set(c, &c.namelookup, d) // an address literal: nothing to look up
				if set(c, &c.connect, d) {
					c.local, c.remote = local, remote
				}
			})
		},
		TLSDone: func(st tls.ConnectionState) {
			now(func(c *woTimes, d time.Duration) {
				if set(c, &c.appconnect, d) {
					c.certs = len(st.PeerCertificates)
				}
			})
		},
		WroteRequest: func(local, remote net.Addr) {
			now(func(c *woTimes, d time.Duration) {
				if set(c, &c.pretransfer, d) {
					c.local, c.remote = local, remote // a kept connection too
				}
			})
		},
		FirstByte: func() {
			now(func(c *woTimes, d time.Duration) {
				if c.pretransfer >= c.redirect {
					set(c, &c.starttransfer, d)
				}
			})
		},
		Redirect: func(string) {
			now(func(c *woTimes, d time.Duration) { c.redirect = d })
		},
		BodySent: func(n int) {
			now(func(c *woTimes, _ time.Duration) { c.uploaded += int64(n) })
		},
	})
}

// start points the trace at r for a new attempt of req (nil: before
// the request is made).
func (w *writeOut) start(r *xferResult, req *fetch.Request) {
	if w == nil {
		return
	}
	w.trace.mu.Lock()
	defer w.trace.mu.Unlock()
	r.times = woTimes{start: time.Now(), method: "GET"}
	if req != nil {
		switch m := req.Options.String(fhttp.OptMethod); {
		case m != "":
			r.times.method = m
		case req.Head:
			r.times.method = "HEAD"
		case req.Body != nil:
			r.times.method = "POST"
		}
	}
	w.trace.cur = &r.times
}
