package urlparse_test

import (
	"errors"
	"fmt"

	"github.com/urlget/urlget/urlparse"
)

func ExampleParse() {
	u, err := urlparse.Parse("HTTP://User@Example.COM:8080/a%20b?q=1#top")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(u.Scheme, u.User, u.Host, u.Port)
	fmt.Printf("%q %q %q\n", u.Path, u.Query, u.Fragment)
	fmt.Println(u.RawPath, u.String())
	// Output:
	// http User Example.COM 8080
	// "/a b" "q=1" "top"
	// /a%20b HTTP://User@Example.COM:8080/a%20b?q=1#top
}

// The scheme's own fields: an ftp URL's directories, file name and type.
func ExampleURL_ftp() {
	u, err := urlparse.Parse("ftp://ftp.example.org/pub/%2Fetc/motd;type=a")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q %q %c\n", u.FTP.CWD, u.FTP.Name, u.FTP.Type)
	fmt.Println(u.PortOrDefault())
	// Output:
	// ["pub" "/etc"] "motd" a
	// 21
}

// A gopher URL built from its fields and read back.
func ExampleGopherURL() {
	s := urlparse.GopherURL("gopher", "gopher.example.org", 70, '0', "/docs/about.txt")
	u, _ := urlparse.Parse(s)
	fmt.Println(s)
	fmt.Printf("%c %q\n", u.Gopher.Type, u.Gopher.Selector)
	// Output:
	// gopher://gopher.example.org/0/docs/about.txt
	// 0 "/docs/about.txt"
}

func ExampleRef_Resolve() {
	base, _ := urlparse.ParseAbsolute("http://a/b/c/d;p?q")
	for _, s := range []string{"g", "../g", "//g", "?y", "#s", "../../../g"} {
		ref, _ := urlparse.ParseRef(s)
		t := base.Resolve(&ref)
		fmt.Println(s, "->", t.String())
	}
	// Output:
	// g -> http://a/b/c/g
	// ../g -> http://a/b/g
	// //g -> http://g
	// ?y -> http://a/b/c/d;p?y
	// #s -> http://a/b/c/d;p?q#s
	// ../../../g -> http://a/g
}

func ExampleNormalize() {
	n, err := urlparse.Normalize("HTTP://www.Example.COM:80/%7ea/./b/../c%2f?%41")
	fmt.Println(n, err)
	eq, _ := urlparse.Equivalent("http://example.com", "HTTP://EXAMPLE.com:80/")
	fmt.Println(eq)
	// Output:
	// http://www.example.com/~a/c%2F?A <nil>
	// true
}

func ExampleExtract() {
	text := "See <URL:ftp://ftp.example.org/pub/\n  README> or http://example.com/x, then news:comp.lang.go."
	for _, f := range urlparse.Extract(text) {
		fmt.Println(f.URL)
	}
	// Output:
	// ftp://ftp.example.org/pub/README
	// http://example.com/x
	// news:comp.lang.go
}

// RFC 3986 and the scheme give separate verdicts: "http:g" is a URI (the
// result of resolving "http:g" against an http base, RFC 3986 §5.4.2), but
// not an http URL, which needs a host. Parse returns the generic components
// beside the scheme's error.
func ExampleParse_schemeError() {
	for _, s := range []string{"http:g", "http://127.0.0.1:80808/", "http://h/%zz"} {
		u, err := urlparse.Parse(s)
		var e *urlparse.Error
		switch {
		case err == nil:
			fmt.Println("ok:", u.String())
		case errors.As(err, &e) && e.Scheme != "":
			fmt.Printf("URI %s (path %q, port %d); %s rule %s: %s\n", u.String(), u.Path, u.Port, e.Scheme, e.Rule, e.Msg)
		default:
			fmt.Println("not a URI:", err)
		}
	}
	// Output:
	// URI http:g (path "g", port -1); http rule httpurl: a http URL needs "//" and a host
	// URI http://127.0.0.1:80808/ (path "/", port 65536); http rule port: port number over 65535
	// not a URI: malformed URL "http://h/%zz" at byte 10: bad percent-encoding ('%' must be followed by two hex digits) (path)
}

// An IRI is taken in its URI form: IDNA for the host, UTF-8
// percent-encoding for the rest. Parse, strict RFC 3986, refuses it.
func ExampleParseIRI() {
	u, err := urlparse.ParseIRI("http://bücher.de/straße?q=ü")
	fmt.Println(u.String(), err)
	fmt.Printf("%q %q\n", u.Host, u.Path)

	n, _ := urlparse.ParseIRI("news:<1234@example.net>")
	fmt.Println(n.String(), n.News.MessageID)

	_, err = urlparse.Parse("http://bücher.de/")
	fmt.Println(err)
	// Output:
	// http://xn--bcher-kva.de/stra%C3%9Fe?q=%C3%BC <nil>
	// "xn--bcher-kva.de" "/straße"
	// news:1234@example.net 1234@example.net
	// malformed URL "http://bücher.de/" at byte 8: non-ASCII byte 0xC3 (host)
}
