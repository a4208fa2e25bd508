package ntlm

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The values of MS-NLMP §4.2.1 and §4.2.2 (NTLMv1), user "User", domain
// "Domain", password "Password", server challenge 0123456789abcdef.
func TestV1Vectors(t *testing.T) {
	nonce := [8]byte{1, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	if got, want := ntHash("Password"), unhex(t, "a4f49c406510bdcab6824ee7c30fd852"); !bytes.Equal(got, want) {
		t.Errorf("NT hash %x, want %x", got, want)
	}
	if got, want := lmHash("Password"), unhex(t, "e52cac67419a9a224a3b108f3fa6cb6d"); !bytes.Equal(got, want) {
		t.Errorf("LM hash %x, want %x", got, want)
	}
	if got, want := desResponse(ntHash("Password"), nonce), unhex(t, "67c43011f30298a2ad35ece64f16331c44bdbed927841f94"); !bytes.Equal(got, want) {
		t.Errorf("NTLMv1 response %x, want %x", got, want)
	}
	if got, want := desResponse(lmHash("Password"), nonce), unhex(t, "98def7b87f88aa5dafe2df779688a172def11c7d5ccdef13"); !bytes.Equal(got, want) {
		t.Errorf("LMv1 response %x, want %x", got, want)
	}
}

// The values of MS-NLMP §4.2.4 (NTLMv2): client challenge aa..., time 0,
// the AV pairs of the example (NetBIOS domain "Domain", server "Server").
func TestV2Vectors(t *testing.T) {
	info := append(append([]byte{2, 0, 12, 0}, utf16le("Domain")...), 1, 0, 12, 0)
	info = append(append(info, utf16le("Server")...), 0, 0, 0, 0)
	c := &Challenge{Flags: flagNTLM2Key | flagTargetInfo | flagUnicode, Nonce: [8]byte{1, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef},
		TargetInfo: info}
	if got, want := v2Hash(ntHash("Password"), "User", "Domain"), unhex(t, "0c868a403bfd7a93a3001ef22ef02e3f"); !bytes.Equal(got, want) {
		t.Errorf("NTOWFv2 %x, want %x", got, want)
	}
	cn := [8]byte{0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa}
	m := c.Authenticate(`Domain\User`, "Password", cn, time.Unix(-11644473600, 0))
	lm, nt := field(t, m, 0), field(t, m, 1)
	if want := unhex(t, "86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa"); !bytes.Equal(lm, want) {
		t.Errorf("LMv2 response %x, want %x", lm, want)
	}
	if want := unhex(t, "68cd0ab851e51c96aabc927bebef6a1c"); len(nt) < 16 || !bytes.Equal(nt[:16], want) {
		t.Errorf("NTProofStr %x, want %x", nt, want)
	}
	if got, want := field(t, m, 3), utf16le("User"); !bytes.Equal(got, want) {
		t.Errorf("user %q, want %q (UTF-16LE)", got, want)
	}
}

// field is the security buffer i of an AUTHENTICATE message.
func field(t *testing.T, m []byte, i int) []byte {
	t.Helper()
	p := m[12+8*i:]
	n, off := int(binary.LittleEndian.Uint16(p)), int(binary.LittleEndian.Uint32(p[4:]))
	if off+n > len(m) {
		t.Fatalf("field %d out of the message", i)
	}
	return m[off : off+n]
}

// An NTLMv1 answer, OEM strings: curl's layout (LM, NT, domain, user,
// workstation after the 64-byte head; empty session key at offset 0; the
// server's flags echoed).
func TestAuthenticateV1Layout(t *testing.T) {
	c := &Challenge{Flags: flagOEM | flagNTLM | flagAlwaysSign, Nonce: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}}
	m := c.Authenticate(`dom\me`, "secret", [8]byte{}, time.Time{})
	if string(m[:8]) != signature || binary.LittleEndian.Uint32(m[8:]) != 3 {
		t.Fatalf("head %q", m[:12])
	}
	if got := binary.LittleEndian.Uint32(m[60:]); got != c.Flags {
		t.Errorf("flags %#x, want %#x", got, c.Flags)
	}
	for i, want := range []string{"", "", "dom", "me", Workstation} {
		if i < 2 {
			if n := len(field(t, m, i)); n != 24 {
				t.Errorf("response %d: %d bytes, want 24", i, n)
			}
			continue
		}
		if got := string(field(t, m, i)); got != want {
			t.Errorf("field %d %q, want %q", i, got, want)
		}
	}
	if !bytes.Equal(m[52:60], make([]byte, 8)) {
		t.Errorf("session key field %x, want zeros", m[52:60])
	}
	if want := 64 + 24 + 24 + 3 + 2 + len(Workstation); len(m) != want {
		t.Errorf("%d bytes, want %d", len(m), want)
	}
}

func TestNegotiate(t *testing.T) {
	m := Negotiate()
	if len(m) != 32 || string(m[:8]) != signature || binary.LittleEndian.Uint32(m[8:]) != 1 || binary.LittleEndian.Uint32(m[12:]) != 0x00088206 {
		t.Errorf("NEGOTIATE %x", m)
	}
}

func TestParseChallenge(t *testing.T) {
	b := make([]byte, 48)
	copy(b, signature)
	b[8] = 2
	binary.LittleEndian.PutUint32(b[20:], flagTargetInfo)
	copy(b[24:], "abcdefgh")
	binary.LittleEndian.PutUint16(b[40:], 4)
	binary.LittleEndian.PutUint32(b[44:], 48)
	if _, err := ParseChallenge(b); err == nil {
		t.Error("target info past the end: no error")
	}
	b = append(b, 9, 8, 7, 6)
	c, err := ParseChallenge(b)
	if err != nil || string(c.Nonce[:]) != "abcdefgh" || !bytes.Equal(c.TargetInfo, []byte{9, 8, 7, 6}) {
		t.Errorf("got %+v, %v", c, err)
	}
	if _, err := ParseChallenge(b[:31]); err == nil {
		t.Error("short message: no error")
	}
	b[8] = 3
	if _, err := ParseChallenge(b); err == nil {
		t.Error("type 3 taken for a challenge")
	}
}
