package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// -w/--write-out, as curl: the format is printed after each transfer, with
// %{name} replaced by the variable's value, %header{name} by a response
// header's, "%%" by "%", and "\n", "\r", "\t" by newline, carriage return
// and tab. %{stdout} and %{stderr} switch the rest of the output to that
// stream. An unknown variable prints a warning on stderr and nothing else.
// The times, addresses and upload size come from a fetch.Timer.

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

	"time_namelookup":    woTime(func(t *fetch.Timing) time.Duration { return t.NameLookup }),
	"time_connect":       woTime(func(t *fetch.Timing) time.Duration { return t.Connect }),
	"time_appconnect":    woTime(func(t *fetch.Timing) time.Duration { return t.AppConnect }),
	"time_pretransfer":   woTime(func(t *fetch.Timing) time.Duration { return t.PreTransfer }),
	"time_starttransfer": woTime(func(t *fetch.Timing) time.Duration { return t.StartTransfer }),
	"time_redirect":      woTime(func(t *fetch.Timing) time.Duration { return t.Redirect }),
	"remote_ip":          {text: func(r *xferResult) string { ip, _, _ := fetch.AddrPort(r.times.Remote); return ip }},
	"remote_port":        woInt(func(r *xferResult) int64 { _, p, _ := fetch.AddrPort(r.times.Remote); return int64(p) }),
	"local_ip":           {text: func(r *xferResult) string { ip, _, _ := fetch.AddrPort(r.times.Local); return ip }},
	"local_port":         woInt(func(r *xferResult) int64 { _, p, _ := fetch.AddrPort(r.times.Local); return int64(p) }),
	"num_connects":       woInt(func(r *xferResult) int64 { return int64(r.times.Connects) }),
	"num_redirects":      woInt(func(r *xferResult) int64 { return int64(len(r.meta.Replies()) - 1) }), // a Digest exchange's 401s too, as curl
	"num_headers":        woInt(func(r *xferResult) int64 { return int64(len(r.meta.Header)) }),
	"redirect_url":       {text: func(r *xferResult) string { return r.meta.RedirectURL() }, json: func(r *xferResult) any { return woNull(r.meta.RedirectURL()) }},
	"http_version":       {text: func(r *xferResult) string { return r.meta.HTTPVersion() }},
	"method":             {text: func(r *xferResult) string { return r.method }},
	"size_upload":        woInt(func(r *xferResult) int64 { return r.times.Uploaded }),
	"speed_upload":       woInt(func(r *xferResult) int64 { return woPer(r.times.Uploaded, r.elapsed) }),
	"size_header":        woInt(func(r *xferResult) int64 { return r.meta.HeaderSize() }),
	"size_request":       woInt(func(*xferResult) int64 { return 0 }),
	// curl's, for TLS details and features urlget does not report: the
	// value curl gives when they are not in use.
	"certs":                   {text: func(*xferResult) string { return "" }},
	"num_certs":               woInt(func(r *xferResult) int64 { return int64(r.times.Certs) }),
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

func woTime(f func(*fetch.Timing) time.Duration) woVar {
	return woVar{text: func(r *xferResult) string { return woSeconds(f(&r.times)) },
		json: func(r *xferResult) any { return json.Number(woSeconds(f(&r.times))) }}
}

func woInt(f func(*xferResult) int64) woVar {
	return woVar{text: func(r *xferResult) string { return strconv.FormatInt(f(r), 10) },
		json: func(r *xferResult) any { return f(r) }}
}

// woHeader is %header{name}: the values of the fields named name, joined
// with ", " (curl). Only an HTTP reply's: curl counts a file's header
// fields (%{num_headers}) but shows none.
func woHeader(r *xferResult, name string) string {
	if !r.meta.IsHTTP() {
		return ""
	}
	return strings.Join(r.meta.Header.Values(name), ", ")
}

// woHeaderJSON is %{header_json}: the last reply's fields, names in lower
// case, each with the array of its values, in the order of the first of
// each, laid out as curl lays it out.
func woHeaderJSON(r *xferResult) string {
	var names []string
	values := map[string][]string{}
	var fields fetch.Header
	if r.meta.IsHTTP() {
		fields = r.meta.Header // as woHeader
	}
	for _, f := range fields {
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
	return fetch.OneLine(r.err.Error())
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
	timer  fetch.Timer
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
	w.timer.End(&r.times)
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

// start points the Timer at r for a new attempt sent with method ("":
// before the request is made).
func (w *writeOut) start(r *xferResult, method string) {
	if w == nil {
		return
	}
	w.timer.Begin(&r.times)
	r.method = cmp.Or(method, "GET")
}
