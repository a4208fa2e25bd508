package fetch

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"iter"
)

// MaxLineLength bounds a listing line that Entries hands to Listing. A
// longer line gives an Unparsed entry holding its first MaxLineLength
// bytes; the rest of it is read and dropped.
const MaxLineLength = 64 << 10

// Entries reads Body line by line and yields what Listing makes of each
// line, in order. A line ends at "\n", with an "\r" before it dropped; a
// last line without a newline counts. Memory stays bounded by
// MaxLineLength whatever the listing's size.
//
// The line passed to Listing is valid only during the call: a Listing
// copies what it keeps (string(line) does).
//
// A read error is yielded once, with a zero Entry, and ends the sequence;
// so does calling Entries on a resource without a Listing. The caller still
// closes Body.
func (r *Resource) Entries() iter.Seq2[Entry, error] { return r.EntriesFrom(r.Body) }

// EntriesFrom is Entries reading the listing from body (Body as a caller
// wrapped it) instead of Body.
func (r *Resource) EntriesFrom(body io.Reader) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if r.Listing == nil {
			yield(Entry{}, &Error{Kind: ErrOther, URL: r.EffectiveURL, Msg: "the resource is not a listing"})
			return
		}
		br := bufio.NewReaderSize(body, MaxLineLength)
		for {
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				raw := string(line)
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				if err != nil && err != io.EOF {
					yield(Entry{}, err)
					return
				}
				if !yield(Entry{Raw: raw, Unparsed: true, Size: -1}, nil) {
					return
				}
				if err == io.EOF {
					return
				}
				continue
			}
			// A line cut short by a read error is not handed on.
			if len(line) > 0 && (err == nil || err == io.EOF) {
				line = bytes.TrimSuffix(line, []byte{'\n'})
				line = bytes.TrimSuffix(line, []byte{'\r'})
				if err == nil || len(line) > 0 {
					if !yield(r.Listing(line), nil) {
						return
					}
				}
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Entry{}, err)
				return
			}
		}
	}
}
