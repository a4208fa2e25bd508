package fetch

import "io"

// SkipReader resumes a transfer that the protocol cannot start mid-way: it
// reads and drops the first n bytes of r, then reads on. If r ends before
// n bytes, Read fails with ErrResume, msg saying why.
func SkipReader(r io.Reader, n int64, msg string) io.Reader {
	if n <= 0 {
		return r
	}
	return &skipReader{r: r, n: n, msg: msg}
}

type skipReader struct {
	r   io.Reader
	n   int64
	msg string
}

func (s *skipReader) Read(p []byte) (int, error) {
	if s.n > 0 {
		k, err := io.CopyN(io.Discard, s.r, s.n)
		s.n -= k
		if err == io.EOF {
			return 0, &Error{Kind: ErrResume, Msg: s.msg}
		}
		if err != nil {
			return 0, err
		}
	}
	return s.r.Read(p)
}

// A Skipper is a Request.Body that can drop its first n bytes itself (a
// file seeks; the Client's wrappers pass the skip on without pacing,
// counting or reporting those bytes as sent). SkipBody uses it.
type Skipper interface {
	Skip(n int64) (int64, error)
}

// SkipBody drops the first n bytes of a Request.Body, for a fetcher that
// resumes an upload (the resource holds them already): through the body's
// Skipper when it is one, so that the bytes are neither paced
// (Client.LimitRate) nor counted as sent, else by reading them. It returns
// how many were dropped: fewer than n when the body ended first (io.EOF).
func SkipBody(r io.Reader, n int64) (int64, error) {
	if s, ok := r.(Skipper); ok {
		return s.Skip(n)
	}
	return io.CopyN(io.Discard, r, n)
}
