package download

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// woVar is one write-out variable.
type woVar struct {
	text func(r *Result) string // its value in the format
	json func(r *Result) any    // its value in %{json}; nil: JSON string of text
}

var woVars = map[string]woVar{
	"url":                {text: func(r *Result) string { return r.URL }},
	"url_effective":      {text: func(r *Result) string { return r.Effective }},
	"http_code":          {text: woCode, json: func(r *Result) any { return r.Status }},
	"response_code":      {text: woCode, json: func(r *Result) any { return r.Status }},
	"size_download":      {text: func(r *Result) string { return strconv.FormatInt(r.Size, 10) }, json: func(r *Result) any { return r.Size }},
	"speed_download":     {text: func(r *Result) string { return strconv.FormatInt(woSpeed(r), 10) }, json: func(r *Result) any { return woSpeed(r) }},
	"time_total":         {text: func(r *Result) string { return woSeconds(r.Elapsed) }, json: func(r *Result) any { return json.Number(woSeconds(r.Elapsed)) }},
	"content_type":       {text: func(r *Result) string { return r.ContentType }, json: func(r *Result) any { return woNull(r.ContentType) }},
	"filename_effective": {text: func(r *Result) string { return r.Filename }, json: func(r *Result) any { return woNull(r.Filename) }},
	"exitcode":           {text: func(r *Result) string { return strconv.Itoa(r.Code) }, json: func(r *Result) any { return r.Code }},
	"errormsg":           {text: woErr, json: func(r *Result) any { return woNull(woErr(r)) }},
	"scheme":             {text: woScheme, json: func(r *Result) any { return woNull(woScheme(r)) }},
	"urlnum":             {text: func(r *Result) string { return strconv.Itoa(r.Num) }, json: func(r *Result) any { return r.Num }},

	"time_namelookup":    woTime(func(t *fetch.Timing) time.Duration { return t.NameLookup }),
	"time_connect":       woTime(func(t *fetch.Timing) time.Duration { return t.Connect }),
	"time_appconnect":    woTime(func(t *fetch.Timing) time.Duration { return t.AppConnect }),
	"time_pretransfer":   woTime(func(t *fetch.Timing) time.Duration { return t.PreTransfer }),
	"time_starttransfer": woTime(func(t *fetch.Timing) time.Duration { return t.StartTransfer }),
	"time_redirect":      woTime(func(t *fetch.Timing) time.Duration { return t.Redirect }),
	"remote_ip":          {text: func(r *Result) string { ip, _, _ := fetch.AddrPort(r.Timing.Remote); return ip }},
	"remote_port":        woInt(func(r *Result) int64 { _, p, _ := fetch.AddrPort(r.Timing.Remote); return int64(p) }),
	"local_ip":           {text: func(r *Result) string { ip, _, _ := fetch.AddrPort(r.Timing.Local); return ip }},
	"local_port":         woInt(func(r *Result) int64 { _, p, _ := fetch.AddrPort(r.Timing.Local); return int64(p) }),
	"num_connects":       woInt(func(r *Result) int64 { return int64(r.Timing.Connects) }),
	"num_redirects":      woInt(func(r *Result) int64 { return int64(len(r.Meta.Replies()) - 1) }), // a Digest exchange's 401s too, as curl
	"num_headers":        woInt(func(r *Result) int64 { return int64(len(r.Meta.Header)) }),
	"redirect_url":       {text: func(r *Result) string { return r.Meta.RedirectURL() }, json: func(r *Result) any { return woNull(r.Meta.RedirectURL()) }},
	"http_version":       {text: func(r *Result) string { return r.Meta.HTTPVersion() }},
	"method":             {text: func(r *Result) string { return r.Method }},
	"size_upload":        woInt(func(r *Result) int64 { return r.Timing.Uploaded }),
	"speed_upload":       woInt(func(r *Result) int64 { return woPer(r.Timing.Uploaded, r.Elapsed) }),
	"size_header":        woInt(func(r *Result) int64 { return r.Meta.HeaderSize() }),
	"size_request":       woInt(func(*Result) int64 { return 0 }),
	// curl's, for TLS details and features urlget does not report: the
	// value curl gives when they are not in use.
	"certs":                   {text: func(*Result) string { return "" }},
	"num_certs":               woInt(func(r *Result) int64 { return int64(r.Timing.Certs) }),
	"ssl_verify_result":       woInt(func(*Result) int64 { return 0 }),
	"proxy_ssl_verify_result": woInt(func(*Result) int64 { return 0 }),
	"http_connect":            woInt(woConnect),
	"ftp_entry_path":          {text: func(*Result) string { return "" }, json: func(*Result) any { return nil }},
	"referer":                 {text: func(r *Result) string { return "" }, json: func(*Result) any { return nil }},
}

// woConnect is the status of the last CONNECT reply from an HTTP proxy
// (curl's %{http_connect}), 0 when no tunnel was opened.
func woConnect(r *Result) int64 {
	var code int
	for _, m := range r.Meta.Replies() {
		if m.Tunnel != nil {
			code = m.Tunnel.Status
		}
	}
	return int64(code)
}

// woScheme is the scheme of the connection made, upper case (curl): none
// when none could be.
func woScheme(r *Result) string {
	switch fetch.KindOf(r.Err) {
	case fetch.ErrResolve, fetch.ErrConnect, fetch.ErrInterface:
		if r.Err != nil {
			return ""
		}
	}
	return strings.ToUpper(r.Scheme)
}

func woTime(f func(*fetch.Timing) time.Duration) woVar {
	return woVar{text: func(r *Result) string { return woSeconds(f(&r.Timing)) },
		json: func(r *Result) any { return json.Number(woSeconds(f(&r.Timing))) }}
}

func woInt(f func(*Result) int64) woVar {
	return woVar{text: func(r *Result) string { return strconv.FormatInt(f(r), 10) },
		json: func(r *Result) any { return f(r) }}
}

// woHeader is %header{name}: the values of the fields named name, joined
// with ", " (curl). Only an HTTP reply's: curl counts a file's header
// fields (%{num_headers}) but shows none.
func woHeader(r *Result, name string) string {
	if !r.Meta.IsHTTP() {
		return ""
	}
	return strings.Join(r.Meta.Header.Values(name), ", ")
}

// woHeaderJSON is %{header_json}: the last reply's fields, names in lower
// case, each with the array of its values, in the order of the first of
// each, laid out as curl lays it out.
func woHeaderJSON(r *Result) string {
	var names []string
	values := map[string][]string{}
	var fields fetch.Header
	if r.Meta.IsHTTP() {
		fields = r.Meta.Header // as woHeader
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

func woCode(r *Result) string { return fmt.Sprintf("%03d", r.Status) }

func woErr(r *Result) string {
	if r.Err == nil {
		return ""
	}
	return cli.InFlags(fetch.OneLine(r.Err.Error()))
}

func woSpeed(r *Result) int64 { return woPer(r.Size, r.Elapsed) }

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

// A WriteOut is a format of curl's -w/--write-out, parsed once and
// rendered after each transfer (Render) from its Result: %{name} is
// replaced by the variable's value (curl's names: http_code, size_download,
// time_total, url_effective, json, header_json, ...), %header{name} by a
// response header's, "%%" by "%", and "\n", "\r", "\t" by newline,
// carriage return and tab. %{stdout} and %{stderr} switch the rest of the
// output to that stream; after %{onerror}, the rest is printed only for a
// transfer that failed (Result.Code not 0). The times, addresses and upload size are the
// Result's Timing (Downloader.Timer).
type WriteOut struct {
	pieces []woPiece
	// Version is %{curl_version}: the program's name and version.
	Version string
	// Unknown is told of a variable the format names that does not
	// exist, which prints nothing; nil: a line on stderr says so.
	Unknown func(stderr io.Writer, name string)
}

// ParseWriteOut parses a format; anything it does not understand is
// literal text.
func ParseWriteOut(format string) *WriteOut {
	w := &WriteOut{}
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

// Render prints the format for one transfer.
func (w *WriteOut) Render(stdout, stderr io.Writer, r *Result) {
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
			b.WriteString(w.json(r))
		case p.name == "curl_version":
			b.WriteString(w.Version)
		case p.name == "onerror":
			if r.Code == 0 {
				emit()
				return // the rest is for a failed transfer only
			}
		case p.name == "header_json":
			b.WriteString(woHeaderJSON(r))
		case p.name != "":
			v, ok := woVars[p.name]
			if !ok {
				emit()
				if w.Unknown != nil {
					w.Unknown(stderr, p.name)
				} else {
					fmt.Fprintf(stderr, "unknown --write-out variable: '%s'\n", p.name)
				}
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

// json is %{json}: every variable in one JSON object, keys sorted but
// curl_version, last (as curl).
func (w *WriteOut) json(r *Result) string {
	names := slices.Sorted(maps.Keys(woVars))
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
	b.WriteString(`,"curl_version":`)
	woJSONValue(&b, w.Version)
	b.WriteByte('}')
	return b.String()
}
