package waistest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Apple is the 124-byte apple.txt of the captured freeWAIS-sf database.
const Apple = "Apples and orchards\nThe apple is a sweet fruit grown in orchards around the world.\nOrchards of apple trees bloom in spring.\n"

// Big is a text of n lines like the captured big.txt, which is Big(800):
// 63,237 bytes.
func Big(n int) []byte {
	var b strings.Builder
	b.WriteString("Big document about the apple harvest\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "Line %04d: the quick brown fox jumps over the lazy dog near the apple orchard.\n", i)
	}
	return []byte(b.String())
}

// Bytes is n pseudo-random bytes from seed: every byte value occurs,
// NUL, CR, LF and 0x1d (the end of a diagnostic record) included.
func Bytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// LongPath is a file path of more than 127 bytes: DocIDs that hold it
// have fields with two-byte (compressed integer) lengths.
var LongPath = "/srv/wais/data/" + strings.Repeat("a-rather-long-directory-name/", 6) + "long.txt"

// TestDB is the database "test" of the tests: apple.txt (124 bytes),
// big.txt, a 1-byte file, 300 KB and 10 MB of binary, and a text under
// LongPath.
func TestDB() *DB {
	big := Big(800)
	return &DB{
		Name:        "test",
		Description: "A test database about apples.",
		Docs: []*Doc{
			{Name: "apple.txt", Data: []byte(Apple)},
			{Name: "big.txt", Data: big},
			{Name: "one.bin", Type: "BINARY", Data: []byte{'x'}},
			{Name: "k300.bin", Type: "BINARY", Data: Bytes(300_000, 300)},
			{Name: "m10.bin", Type: "BINARY", Data: Bytes(10_000_000, 10)},
			{Name: "long.txt", Path: LongPath, Date: "19930215", Data: []byte("a document whose path is long, about apple pie\n")},
		},
	}
}

// CaptureDB is the database of the captures (wais-captures.txt): served
// with Config.Name "vm:22100" and Config.DBDir "/tmp/wais-build/db/", its
// DocIDs are the captured ones byte for byte.
func CaptureDB() *DB {
	return &DB{
		Name:        "test",
		Description: "test",
		Docs: []*Doc{
			{Name: "apple.txt", Path: "/tmp/wais-build/data/apple.txt", Data: []byte(Apple)},
			{Name: "big.txt", Path: "/tmp/wais-build/data/big.txt", Data: Big(800)},
		},
	}
}
