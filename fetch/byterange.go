package fetch

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Range asks for part of a resource (Request.Range): curl's -r/--range.
// http sends Spec as it is ("Range: bytes=SPEC", several ranges among
// them); ftp, file and wais fetch the first range (ftp: REST, then ABOR
// once it has arrived); other schemes ignore it and send the whole
// resource, as curl does (Scheme.Caps without Ranges).
type Range struct {
	// Start and End are the first and the last byte of the first range;
	// End is -1 for "to the end". With Last set, both are unused.
	Start, End int64
	// Last, when > 0, asks for the last Last bytes ("-500").
	Last int64
	// Spec is the range as given: "0-499", "500-", "-500", "0-9,20-29".
	Spec string
}

// ParseRange reads curl's range syntax: START-END, START- or -LAST,
// several comma-separated (only http honours more than the first). A lone
// number N is taken as "N-", as curl does.
func ParseRange(s string) (*Range, error) {
	bad := func() (*Range, error) {
		return nil, fmt.Errorf("want START-END, START- or -LAST (http: several, comma-separated), not %q", s)
	}
	spec := s
	if s != "" && !strings.Contains(s, "-") {
		spec = s + "-"
	}
	var first *Range
	for part := range strings.SplitSeq(spec, ",") {
		a, b, ok := strings.Cut(part, "-")
		if !ok || a == "" && b == "" {
			return bad()
		}
		num := func(t string) (int64, bool) {
			if t == "" {
				return -1, true
			}
			n, err := strconv.ParseInt(t, 10, 64)
			return n, err == nil && n >= 0 && t[0] != '+'
		}
		start, ok1 := num(a)
		end, ok2 := num(b)
		if !ok1 || !ok2 || start >= 0 && end >= 0 && end < start || start < 0 && end == 0 {
			return bad()
		}
		if first == nil {
			first = &Range{Start: start, End: end, Spec: spec}
			if start < 0 {
				first.Start, first.End, first.Last = 0, -1, end
			}
		}
	}
	return first, nil
}

// Span resolves the first range against a resource of size bytes (-1 when
// unknown): where to start, and how many bytes to send (-1: to the end).
// A range that starts past the end is ErrResume, as curl's "offset was
// beyond file size"; so is a LAST when the size is unknown.
func (r *Range) Span(size int64) (start, n int64, err error) {
	if r.Last > 0 {
		switch {
		case size < 0:
			return 0, 0, &Error{Kind: ErrResume, Msg: fmt.Sprintf("cannot send the last %d bytes: the size is unknown", r.Last)}
		case r.Last > size:
			return 0, 0, &Error{Kind: ErrResume, Msg: fmt.Sprintf("offset (-%d) was beyond the size (%d)", r.Last, size)}
		}
		return size - r.Last, r.Last, nil
	}
	if size >= 0 && r.Start > size {
		return 0, 0, &Error{Kind: ErrResume, Msg: fmt.Sprintf("offset (%d) was beyond the size (%d)", r.Start, size)}
	}
	n = -1
	if r.End >= 0 {
		n = r.End - r.Start + 1
	}
	if size >= 0 && (n < 0 || r.Start+n > size) {
		n = size - r.Start
	}
	return r.Start, n, nil
}

// Unchanged reports whether a resource modified at mod (zero: unknown)
// fails req's time condition and is not to be sent: its time, to the
// second, is not after IfModifiedSince, or is after IfUnmodifiedSince.
// A fetcher that knows the time calls it (curl's -z).
func (req *Request) Unchanged(mod time.Time) bool {
	if mod.IsZero() {
		return false
	}
	mod = mod.Truncate(time.Second)
	if !req.IfModifiedSince.IsZero() && !mod.After(req.IfModifiedSince.Truncate(time.Second)) {
		return true
	}
	return !req.IfUnmodifiedSince.IsZero() && mod.After(req.IfUnmodifiedSince.Truncate(time.Second))
}
