package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// -w/--write-out, as curl: the format is printed after each transfer, with
// %{name} replaced by the variable's value, "%%" by "%", and "\n", "\r",
// "\t" by newline, carriage return and tab. %{stdout} and %{stderr} switch
// the rest of the output to that stream. An unknown variable prints a
// warning on stderr and nothing else.

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
	"scheme":             {text: func(r *xferResult) string { return strings.ToUpper(r.scheme) }, json: func(r *xferResult) any { return woNull(strings.ToUpper(r.scheme)) }},
	"urlnum":             {text: func(r *xferResult) string { return strconv.Itoa(r.num) }, json: func(r *xferResult) any { return r.num }},
}

func woCode(r *xferResult) string { return fmt.Sprintf("%03d", r.status) }

func woErr(r *xferResult) string {
	if r.err == nil {
		return ""
	}
	return oneLine(r.err.Error())
}

func woSpeed(r *xferResult) int64 {
	if s := r.elapsed.Seconds(); s > 0 {
		return int64(float64(r.size) / s)
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
}

type writeOut struct{ pieces []woPiece }

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
		case p.name == "json":
			b.WriteString(woJSON(r))
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

// woJSON is %{json}: every variable in one JSON object, keys sorted.
func woJSON(r *xferResult) string {
	names := make([]string, 0, len(woVars))
	for k := range woVars {
		names = append(names, k)
	}
	sort.Strings(names)
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
