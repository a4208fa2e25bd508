package mid

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzFindPart: a message of any bytes (headers, multipart boundaries,
// nesting, transfer encodings) is walked to the part with a Content-ID or
// refused; a part found decodes to no more bytes than the message holds;
// and the work is bounded by the message.
func FuzzFindPart(f *testing.F) {
	article := strings.Join(mimeArticle.Head, "\r\n") + "\r\n\r\n" + strings.Join(mimeArticle.Body, "\r\n") + "\r\n"
	for _, cid := range []string{"text.1@example.net", "bin.1@example.net", "dots@example.net", "missing@example.net"} {
		f.Add([]byte(article), cid)
	}
	for _, s := range []string{
		deepMessage(20),
		"Content-Type: multipart/mixed\r\n\r\n--x\r\n\r\n",
		"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-ID: <a@b>\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!\r\n--x--\r\n",
		"Content-ID: <a@b>\r\nContent-Transfer-Encoding: Quoted-Printable\r\n\r\n=4=\r\n=ZZ\r\n",
		"Content-ID: a@b\r\n\r\nplain body",
		"Content-Type: multipart/mixed; boundary=x\r\n\r\n" + strings.Repeat("--x\r\n\r\n", 2000) + "--x--\r\n",
		"No-Colon\r\n\r\n", "Content-Type: ;;;\r\n\r\n",
	} {
		f.Add([]byte(s), "a@b")
	}
	f.Fuzz(func(t *testing.T, msg []byte, cid string) {
		fuzzcheck.Bounded(t, len(msg)+len(cid), func() {
			body, _, err := findPart(bytes.NewReader(msg), cid)
			if err != nil {
				return
			}
			n, _ := io.Copy(io.Discard, body)
			if n > int64(len(msg)) {
				t.Fatalf("a message of %d bytes gave a part of %d bytes", len(msg), n)
			}
		})
	})
}
