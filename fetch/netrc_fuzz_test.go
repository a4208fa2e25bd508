package fetch_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzParseNetrc: a netrc file of any bytes parses or fails; what parses,
// written again (every value quoted), parses to the same entries; Lookup
// finds every machine by its name and login; and the work is bounded by
// the file.
func FuzzParseNetrc(f *testing.F) {
	fuzzcheck.Seeds(f,
		netrcSample, "machine", "machine x login", `machine x password "unterminated`, "machine h login only",
		`machine "a b" login "\t\"\\\n" password "" account #x`, "macdef m\n\n", "login first\nmachine h\n#c\r\n", "default\x00machine\vx",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		var n *fetch.Netrc
		var err error
		fuzzcheck.Bounded(t, len(data), func() { n, err = fetch.ParseNetrc(strings.NewReader(string(data))) })
		if err != nil {
			return
		}
		again, err := fetch.ParseNetrc(strings.NewReader(formatNetrc(n)))
		if err != nil || !reflect.DeepEqual(again.Machines, n.Machines) && len(n.Machines) > 0 {
			t.Fatalf("%q: %+v written again parses as %+v, %v", data, n.Machines, again, err)
		}
		for _, m := range n.Machines {
			if m.Default {
				continue
			}
			if got, ok := n.Lookup(m.Name, m.Login); !ok || !strings.EqualFold(got.Name, m.Name) || m.Login != "" && got.Login != m.Login || got.Default {
				t.Fatalf("%q: Lookup(%q, %q) = %+v, %v", data, m.Name, m.Login, got, ok)
			}
		}
	})
}

// formatNetrc writes n as a netrc file, every value in quotes.
func formatNetrc(n *fetch.Netrc) string {
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	var b strings.Builder
	for _, m := range n.Machines {
		if m.Default {
			b.WriteString("default")
		} else {
			b.WriteString(`machine "` + q.Replace(m.Name) + `"`)
		}
		b.WriteString(` login "` + q.Replace(m.Login) + `"`)
		if m.HasPassword {
			b.WriteString(` password "` + q.Replace(m.Password) + `"`)
		}
		b.WriteString(` account "` + q.Replace(m.Account) + "\"\n")
	}
	return b.String()
}
