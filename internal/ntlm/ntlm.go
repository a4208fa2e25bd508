// Package ntlm builds the client's messages of NTLM authentication
// (MS-NLMP), as curl sends them over HTTP: the NEGOTIATE message (type 1)
// and the AUTHENTICATE message (type 3) answering a server's CHALLENGE
// (type 2). It holds no state and does no I/O; carrying the messages in
// Authorization or Proxy-Authorization fields, on one connection, is the
// caller's (fetch/http, fetch's CONNECT tunnel).
//
// The messages are curl's, byte for byte, so that a server that works
// with curl works with urlget: type 1 carries only its flags (OEM,
// request target, NTLM, always sign, NTLM2 key) and no domain or
// workstation; type 3 names the workstation "WORKSTATION" (curl's, after
// Firefox: the machine's own name is not told) and echoes the server's
// flags. The response is NTLMv2 (with a fresh client nonce and the
// current time) when the server's flags ask for NTLM2 session security
// (NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY), which every current
// server does, else NTLMv1 with its LM response. Strings go as UTF-16LE
// when the server's flags say Unicode, else as their bytes (OEM).
//
// Written here rather than taken from github.com/Azure/go-ntlmssp: that
// library always sends NTLMv2 with a version field and its own type 1,
// whose bytes differ from curl's, and curl's behaviour is the spec for
// urlget's --ntlm. MD4 (the NT hash) is golang.org/x/crypto/md4, DES
// (the NTLMv1 responses) crypto/des.
package ntlm

import (
	"crypto/des"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/crypto/md4" //lint:ignore SA1019 NTLM is defined on MD4: compatibility is the goal
)

// Flags of the NTLM messages (MS-NLMP §2.2.2.5) that this package reads
// or sends.
const (
	flagUnicode      = 0x00000001
	flagOEM          = 0x00000002
	flagRequestTgt   = 0x00000004
	flagNTLM         = 0x00000200
	flagAlwaysSign   = 0x00008000
	flagNTLM2Key     = 0x00080000 // extended session security
	flagTargetInfo   = 0x00800000
	negotiateFlags   = flagOEM | flagRequestTgt | flagNTLM | flagAlwaysSign | flagNTLM2Key
	signature        = "NTLMSSP\x00"
	authenticateHead = 64 // the AUTHENTICATE message's fixed part
)

// Workstation is the name the AUTHENTICATE message gives the client
// machine, curl's.
const Workstation = "WORKSTATION"

// Negotiate is the NEGOTIATE message (type 1), 32 bytes.
func Negotiate() []byte {
	b := make([]byte, 32)
	copy(b, signature)
	binary.LittleEndian.PutUint32(b[8:], 1)
	binary.LittleEndian.PutUint32(b[12:], negotiateFlags)
	// Domain and workstation fields (b[16:32]): empty, offset 0.
	return b
}

// Challenge is what an AUTHENTICATE message needs from the server's
// CHALLENGE message.
type Challenge struct {
	Flags      uint32
	Nonce      [8]byte // the server challenge
	TargetInfo []byte  // the AV pairs, when Flags ask for target info
}

// ErrChallenge is a CHALLENGE message that could not be read.
var ErrChallenge = errors.New("malformed NTLM challenge (type 2 message)")

// ParseChallenge reads a CHALLENGE message (type 2).
func ParseChallenge(b []byte) (*Challenge, error) {
	if len(b) < 32 || string(b[:8]) != signature || binary.LittleEndian.Uint32(b[8:]) != 2 {
		return nil, ErrChallenge
	}
	c := &Challenge{Flags: binary.LittleEndian.Uint32(b[20:])}
	copy(c.Nonce[:], b[24:32])
	if c.Flags&flagTargetInfo != 0 && len(b) >= 48 {
		n := int(binary.LittleEndian.Uint16(b[40:]))
		off := int(binary.LittleEndian.Uint32(b[44:]))
		if n > 0 {
			if off < 48 || off > len(b) || n > len(b)-off {
				return nil, ErrChallenge
			}
			c.TargetInfo = append([]byte(nil), b[off:off+n]...)
		}
	}
	return c, nil
}

// SplitUser splits "DOMAIN\user" (or "DOMAIN/user") at its first
// separator; a name without one has no domain.
func SplitUser(name string) (domain, user string) {
	if i := strings.IndexAny(name, `\/`); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// Authenticate is the AUTHENTICATE message (type 3) answering c for user
// (with its domain, SplitUser) and password. clientNonce and now are used
// by NTLMv2 only (a random value and the current time, given so that
// tests can fix them).
func (c *Challenge) Authenticate(user, password string, clientNonce [8]byte, now time.Time) []byte {
	domain, user := SplitUser(user)
	unicode := c.Flags&flagUnicode != 0
	str := func(s string) []byte {
		if unicode {
			return utf16le(s)
		}
		return []byte(s)
	}
	flags := c.Flags
	var lm, nt []byte
	if c.Flags&flagNTLM2Key != 0 {
		key := v2Hash(ntHash(password), user, domain)
		lm = append(hmacMD5(key, c.Nonce[:], clientNonce[:]), clientNonce[:]...)
		blob := make([]byte, 28, 28+len(c.TargetInfo)+4)
		blob[0], blob[1] = 1, 1
		binary.LittleEndian.PutUint64(blob[8:], fileTime(now))
		copy(blob[16:24], clientNonce[:])
		blob = append(blob, c.TargetInfo...)
		blob = append(blob, 0, 0, 0, 0)
		nt = append(hmacMD5(key, c.Nonce[:], blob), blob...)
	} else {
		nt = desResponse(ntHash(password), c.Nonce)
		lm = desResponse(lmHash(password), c.Nonce)
	}
	fields := [][]byte{lm, nt, str(domain), str(user), str(Workstation)}
	b := make([]byte, authenticateHead)
	copy(b, signature)
	binary.LittleEndian.PutUint32(b[8:], 3)
	off := authenticateHead
	for i, f := range fields {
		p := b[12+8*i:]
		binary.LittleEndian.PutUint16(p, uint16(len(f)))
		binary.LittleEndian.PutUint16(p[2:], uint16(len(f)))
		binary.LittleEndian.PutUint32(p[4:], uint32(off))
		off += len(f)
	}
	// The session key field (b[52:60]) stays empty, offset 0, as curl's.
	binary.LittleEndian.PutUint32(b[60:], flags)
	for _, f := range fields {
		b = append(b, f...)
	}
	return b
}

// utf16le is s in UTF-16LE; a byte that is not UTF-8 stands for the
// character of its value (Latin-1), as curl widens every byte.
func utf16le(s string) []byte {
	var b []byte
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			r = rune(s[0])
		}
		s = s[n:]
		for _, u := range utf16.AppendRune(nil, r) {
			b = binary.LittleEndian.AppendUint16(b, u)
		}
	}
	return b
}

// ntHash is MD4 of the password in UTF-16LE (MS-NLMP §3.3.1 NTOWFv1).
func ntHash(password string) []byte {
	h := md4.New()
	h.Write(utf16le(password))
	return h.Sum(nil)
}

// lmHash is the LAN Manager hash (LMOWFv1): the password's first 14
// bytes in upper case, as two DES keys encrypting "KGS!@#$%".
func lmHash(password string) []byte {
	pw := make([]byte, 14)
	copy(pw, password)
	for i, c := range pw {
		if 'a' <= c && c <= 'z' {
			pw[i] = c - 'a' + 'A' // ASCII only: the bytes are OEM, not UTF-8
		}
	}
	const magic = "KGS!@#$%"
	out := make([]byte, 16)
	desBlock(pw[:7], out[:8], []byte(magic))
	desBlock(pw[7:], out[8:], []byte(magic))
	return out
}

// desResponse is the NTLMv1 response of a 16-byte hash to nonce: the
// hash padded to 21 bytes, three DES keys encrypting the nonce.
func desResponse(hash []byte, nonce [8]byte) []byte {
	k := make([]byte, 21)
	copy(k, hash)
	out := make([]byte, 24)
	for i := range 3 {
		desBlock(k[7*i:7*i+7], out[8*i:8*i+8], nonce[:])
	}
	return out
}

// desBlock encrypts the 8-byte block in into out with the DES key made
// of the 56 bits of key7 (each 7 bits followed by a parity bit, which
// DES ignores).
func desBlock(key7, out, in []byte) {
	var k [8]byte
	k[0] = key7[0]
	for i := 1; i < 7; i++ {
		k[i] = key7[i-1]<<(8-i) | key7[i]>>i
	}
	k[7] = key7[6] << 1
	c, _ := des.NewCipher(k[:]) // cannot fail: the key has 8 bytes
	c.Encrypt(out, in)
}

// v2Hash is NTOWFv2: HMAC-MD5 keyed by the NT hash over the user name in
// upper case and the domain, in UTF-16LE.
func v2Hash(nt []byte, user, domain string) []byte {
	return hmacMD5(nt, utf16le(strings.ToUpper(user)+domain))
}

func hmacMD5(key []byte, parts ...[]byte) []byte {
	h := hmac.New(md5.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// fileTime is t in Windows FILETIME: tenths of a microsecond since
// 1601-01-01 UTC.
func fileTime(t time.Time) uint64 {
	const epochDelta = 11644473600 // seconds from 1601 to 1970
	return uint64(t.Unix()+epochDelta)*10000000 + uint64(t.Nanosecond()/100)
}

// NegotiateField is the NEGOTIATE message as the value of an
// Authorization or Proxy-Authorization field.
func NegotiateField() string {
	return "NTLM " + base64.StdEncoding.EncodeToString(Negotiate())
}

// AnswerField answers the NTLM challenge among values (those of a
// WWW-Authenticate or Proxy-Authenticate field) for user and password:
// the AUTHENTICATE message as a field value, with a random client nonce
// and the current time; false when values hold no challenge that can be
// read.
func AnswerField(values []string, user, password string) (string, bool) {
	for _, v := range values {
		scheme, data, _ := strings.Cut(strings.TrimSpace(v), " ")
		if !strings.EqualFold(scheme, "NTLM") {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
		if err != nil {
			return "", false
		}
		c, err := ParseChallenge(b)
		if err != nil {
			return "", false
		}
		var nonce [8]byte
		rand.Read(nonce[:])
		return "NTLM " + base64.StdEncoding.EncodeToString(c.Authenticate(user, password, nonce, time.Now())), true
	}
	return "", false
}
