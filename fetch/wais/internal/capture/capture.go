// Package capture reads the annotated WAIS traffic in
// fetch/wais/testdata/captures.txt (real freeWAIS-sf 2.2.10 exchanges) for
// the tests of the codec, the client and the test server.
package capture

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Message is one captured message.
type Message struct {
	Section  int    // the "######## N." section it is in
	ToServer bool   // C->S
	Size     int    // the byte count announced
	Bytes    []byte // what the dump holds (less than Size when cut)
}

// Complete reports whether the dump holds the whole message.
func (m Message) Complete() bool { return len(m.Bytes) == m.Size }

// Load reads the captures file.
func Load() ([]Message, error) {
	_, file, _, _ := runtime.Caller(0)
	name := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "captures.txt")
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []Message
	section := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "######## "):
			n, _, _ := strings.Cut(strings.TrimPrefix(line, "######## "), ".")
			section, _ = strconv.Atoi(n)
		case strings.HasPrefix(line, "C->S ") || strings.HasPrefix(line, "S->C "):
			f := strings.Fields(line)
			if len(f) != 2 {
				continue // the list of omitted sizes
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return nil, fmt.Errorf("captures: %q", line)
			}
			msgs = append(msgs, Message{Section: section, ToServer: f[0] == "C->S", Size: n})
		case strings.HasPrefix(line, "  0") && len(msgs) > 0:
			// "  000000  30 30 … 20  |ascii|"
			body := strings.TrimSpace(line)
			_, body, _ = strings.Cut(body, "  ")
			if i := strings.Index(body, "  |"); i >= 0 {
				body = body[:i]
			}
			b, err := hex.DecodeString(strings.ReplaceAll(body, " ", ""))
			if err != nil {
				return nil, fmt.Errorf("captures: %q: %v", line, err)
			}
			m := &msgs[len(msgs)-1]
			m.Bytes = append(m.Bytes, b...)
		}
	}
	return msgs, sc.Err()
}

// Find returns the messages of a section in one direction, in order.
func Find(msgs []Message, section int, toServer bool) []Message {
	var out []Message
	for _, m := range msgs {
		if m.Section == section && m.ToServer == toServer {
			out = append(out, m)
		}
	}
	return out
}
