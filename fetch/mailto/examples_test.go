package mailto

import (
	"io"
	"mime"
	"mime/quotedprintable"
)

type wordDecoder = mime.WordDecoder

func qpReader(r io.Reader) io.Reader { return quotedprintable.NewReader(r) }

// example is one RFC 6068 §6 URL with the header fields (as they appear in
// the message) and the body it composes to.
type example struct {
	URL    string
	Header map[string]string
	Body   string
}

// rfc6068Examples are all the URLs of RFC 6068 §6 (6.1 basic, 6.2
// complicated addresses, 6.3 UTF-8), with the blind-copy and multi-address
// forms of §2 beside them.
var rfc6068Examples = []example{
	{"mailto:chris@example.com", map[string]string{"To": "chris@example.com"}, ""},
	{"mailto:infobot@example.com?subject=current-issue", map[string]string{"To": "infobot@example.com", "Subject": "current-issue"}, ""},
	{"mailto:infobot@example.com?body=send%20current-issue", map[string]string{"To": "infobot@example.com"}, "send current-issue\r\n"},
	{"mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index", map[string]string{"To": "infobot@example.com"}, "send current-issue\r\nsend index\r\n"},
	{"mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E", map[string]string{"To": "list@example.org", "In-Reply-To": "<3469A91.D10AF4C@example.com>"}, ""},
	{"mailto:majordomo@example.com?body=subscribe%20bamboo-l", map[string]string{"To": "majordomo@example.com"}, "subscribe bamboo-l\r\n"},
	{"mailto:joe@example.com?cc=bob@example.com&body=hello", map[string]string{"To": "joe@example.com", "Cc": "bob@example.com"}, "hello\r\n"},
	{"mailto:?to=joe@example.com&cc=bob@example.com&body=hello", map[string]string{"To": "joe@example.com", "Cc": "bob@example.com"}, "hello\r\n"},
	{"mailto:gorby%25kremvax@example.com", map[string]string{"To": "gorby%kremvax@example.com"}, ""},
	{"mailto:unlikely%3Faddress@example.com?blat=foop", map[string]string{"To": "unlikely?address@example.com"}, ""},
	{"mailto:Mike%26family@example.org", map[string]string{"To": "Mike&family@example.org"}, ""},
	{"mailto:%22not%40me%22@example.org", map[string]string{"To": `"not@me"@example.org`}, ""},
	{"mailto:%22oh%5C%5Cno%22@example.org", map[string]string{"To": `"oh\\no"@example.org`}, ""},
	{"mailto:%22%5C%5C%5C%22it's%5C%20ugly%5C%5C%5C%22%22@example.org", map[string]string{"To": `"\\\"it's\ ugly\\\""@example.org`}, ""},
	{"mailto:user@example.org?subject=caf%C3%A9", map[string]string{"To": "user@example.org", "Subject": "=?UTF-8?q?caf=C3=A9?="}, ""},
	{"mailto:user@example.org?subject=%3D%3Futf-8%3FQ%3Fcaf%3DC3%3DA9%3F%3D", map[string]string{"Subject": "=?utf-8?Q?caf=C3=A9?="}, ""},
	{"mailto:user@example.org?subject=%3D%3Fiso-8859-1%3FQ%3Fcaf%3DE9%3F%3D", map[string]string{"Subject": "=?iso-8859-1?Q?caf=E9?="}, ""},
	{"mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9", map[string]string{"Subject": "=?UTF-8?q?caf=C3=A9?=", "Content-Transfer-Encoding": "quoted-printable"}, "caf=C3=A9\r\n"},
	{"mailto:user@%E7%B4%8D%E8%B1%86.example.org?subject=Test&body=NATTO", map[string]string{"To": "user@xn--99zt52a.example.org", "Subject": "Test"}, "NATTO\r\n"},
	{"mailto:addr1@an.example,addr2@an.example", map[string]string{"To": "addr1@an.example, addr2@an.example"}, ""},
	{"mailto:?to=addr1@an.example,addr2@an.example", map[string]string{"To": "addr1@an.example, addr2@an.example"}, ""},
	{"mailto:addr1@an.example?to=addr2@an.example", map[string]string{"To": "addr1@an.example, addr2@an.example"}, ""},
	{"mailto:a@example.org?bcc=hidden@example.org&keywords=k1&keywords=k2&comments=c&References=%3Cr1@x%3E%20%3Cr2@x%3E",
		map[string]string{"To": "a@example.org", "Bcc": "", "Keywords": "k1, k2", "Comments": "c", "References": "<r1@x> <r2@x>"}, ""},
}
