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
