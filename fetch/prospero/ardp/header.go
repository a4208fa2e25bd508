package ardp

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// Sizes and defaults of ARDP v0 as the ISI implementation has them.
const (
	DefaultPort = 1525 // ARDP_DEFAULT_PORT
	// DataLen is the most message bytes one packet carries
	// (ARDP_PTXT_LEN): messages are cut at exactly this many bytes.
	DataLen = 1250
	// MaxPacket is the largest datagram the ISI server reads, header
	// included (ARDP_PTXT_LEN_R).
	MaxPacket = 1405
	// DefaultWindow is the number of packets a sender sends ahead of the
	// peer's acknowledgement unless the peer asks for another window.
	DefaultWindow = 16
	// MaxWindow is the largest window a peer may ask for.
	MaxWindow = 256
)

// Header flags (octet 11).
const (
	FlagAddress   = 0x01 // an additional address follows (spec only)
	FlagPriority  = 0x02 // a 2-octet signed priority follows
	FlagProtocol  = 0x04 // a 2-octet protocol id follows
	FlagWindow    = 0x08 // a 2-octet window size follows
	FlagSeqCtl    = 0x40 // sequenced control packet: no data for the application
	FlagPleaseAck = 0x80 // the sender asks for an acknowledgement
)

// Header options (octet 12).
const (
	OptNone          = 0
	OptCancel        = 1 // client → server: cancel; server → client: connection refused
	OptResetThru     = 2
	OptRedirect      = 4 // 4 octets IPv4 address, 2 octets port
	OptRedirectNote  = 5 // as OptRedirect
	OptQueueStatus   = 253
	OptQueueReply    = 254 // 1 flag octet, [2 octets position][4 octets seconds]
	queueHasPosition = 0x01
	queueHasSeconds  = 0x02
)

// Header is an ARDP v0 packet header. Fields the packet's header length
// does not cover take their defaults: a header shorter than 5 octets makes
// the packet number 1 of 1.
type Header struct {
	// Len is the header length in octets (octet 0). Append uses the
	// shortest length that carries the fields set, but at least Len (of
	// the 13 fixed octets; the extensions follow them).
	Len      int
	CID      uint16 // connection id, 0: none
	Seq      uint16 // packet number from 1; 0: unsequenced control packet
	Total    uint16 // packets in the message; 0: not known yet
	RcvdThru uint16 // the sender has every packet of ours up to this one
	Wait     uint16 // do not retransmit for this many seconds
	Flags    uint8
	Option   uint8

	Priority int16  // with FlagPriority
	Protocol uint16 // with FlagProtocol
	Window   uint16 // with FlagWindow

	// Redirect is the new server address of OptRedirect/OptRedirectNote.
	Redirect netip.AddrPort
	// The queue status of OptQueueReply: position and expected seconds,
	// each when present.
	QueuePos    uint16
	HasQueuePos bool
	QueueSecs   uint32
	HasQueueSec bool
}

// ErrHeader is returned by Parse for a packet whose header cannot be read.
var ErrHeader = errors.New("ardp: malformed packet header")

// Parse reads a packet: its header and the data after it (a slice of pkt).
func Parse(pkt []byte) (h Header, data []byte, err error) {
	if len(pkt) == 0 {
		return h, nil, ErrHeader
	}
	if pkt[0]>>6 != 0 || pkt[0] > 31 {
		return h, nil, ErrHeader // another ARDP version, or pre-ARDP text
	}
	n := int(pkt[0] & 0x3f)
	if n < 1 || n > len(pkt) {
		return h, nil, ErrHeader
	}
	h.Len = n
	hdr := pkt[:n]
	u16 := func(off int) uint16 { return binary.BigEndian.Uint16(hdr[off:]) }
	if n >= 3 {
		h.CID = u16(1)
	}
	if n < 5 {
		h.Seq, h.Total = 1, 1
	} else {
		h.Seq = u16(3)
	}
	if n >= 7 {
		h.Total = u16(5)
	}
	if n >= 9 {
		h.RcvdThru = u16(7)
	}
	if n >= 11 {
		h.Wait = u16(9)
	}
	if n >= 12 {
		h.Flags = hdr[11]
	}
	if n >= 13 {
		h.Option = hdr[12]
	}
	off := 13
	take := func(k int) ([]byte, bool) {
		if off+k > n {
			return nil, false
		}
		b := hdr[off : off+k]
		off += k
		return b, true
	}
	if h.Flags&FlagPriority != 0 {
		b, ok := take(2)
		if !ok {
			return h, nil, ErrHeader
		}
		h.Priority = int16(binary.BigEndian.Uint16(b))
	}
	if h.Flags&FlagProtocol != 0 {
		b, ok := take(2)
		if !ok {
			return h, nil, ErrHeader
		}
		h.Protocol = binary.BigEndian.Uint16(b)
	}
	if h.Flags&FlagWindow != 0 {
		b, ok := take(2)
		if !ok {
			return h, nil, ErrHeader
		}
		h.Window = binary.BigEndian.Uint16(b)
	}
	switch h.Option {
	case OptRedirect, OptRedirectNote:
		b, ok := take(6)
		if !ok {
			return h, nil, ErrHeader
		}
		h.Redirect = netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[:4])), binary.BigEndian.Uint16(b[4:]))
	case OptQueueReply:
		b, ok := take(1)
		if !ok {
			return h, nil, ErrHeader
		}
		if b[0]&queueHasPosition != 0 {
			p, ok := take(2)
			if !ok {
				return h, nil, ErrHeader
			}
			h.QueuePos, h.HasQueuePos = binary.BigEndian.Uint16(p), true
		}
		if b[0]&queueHasSeconds != 0 {
			s, ok := take(4)
			if !ok {
				return h, nil, ErrHeader
			}
			h.QueueSecs, h.HasQueueSec = binary.BigEndian.Uint32(s), true
		}
	}
	return h, pkt[n:], nil
}

// Append appends the header, then data, to b: the packet to send.
func (h *Header) Append(b []byte, data []byte) []byte {
	var ext []byte
	if h.Flags&FlagPriority != 0 {
		ext = binary.BigEndian.AppendUint16(ext, uint16(h.Priority))
	}
	if h.Flags&FlagProtocol != 0 {
		ext = binary.BigEndian.AppendUint16(ext, h.Protocol)
	}
	if h.Flags&FlagWindow != 0 {
		ext = binary.BigEndian.AppendUint16(ext, h.Window)
	}
	switch h.Option {
	case OptRedirect, OptRedirectNote:
		a := h.Redirect.Addr().As4()
		ext = append(ext, a[:]...)
		ext = binary.BigEndian.AppendUint16(ext, h.Redirect.Port())
	case OptQueueReply:
		var f byte
		if h.HasQueuePos {
			f |= queueHasPosition
		}
		if h.HasQueueSec {
			f |= queueHasSeconds
		}
		ext = append(ext, f)
		if h.HasQueuePos {
			ext = binary.BigEndian.AppendUint16(ext, h.QueuePos)
		}
		if h.HasQueueSec {
			ext = binary.BigEndian.AppendUint32(ext, h.QueueSecs)
		}
	}
	n := 1
	switch {
	case h.Option != 0 || len(ext) > 0:
		n = 13
	case h.Flags != 0:
		n = 12
	case h.Wait != 0:
		n = 11
	case h.RcvdThru != 0:
		n = 9
	case h.Total != 1 || h.Seq != 1:
		n = 7
	case h.CID != 0:
		n = 3
	}
	n = max(n, min(h.Len, 13)) // past octet 13 come only the extensions
	start := len(b)
	b = append(b, byte(n+len(ext)))
	full := [12]byte{}
	binary.BigEndian.PutUint16(full[0:], h.CID)
	binary.BigEndian.PutUint16(full[2:], h.Seq)
	binary.BigEndian.PutUint16(full[4:], h.Total)
	binary.BigEndian.PutUint16(full[6:], h.RcvdThru)
	binary.BigEndian.PutUint16(full[8:], h.Wait)
	full[10] = h.Flags
	full[11] = h.Option
	b = append(b, full[:n-1]...)
	b = append(b, ext...)
	if n+len(ext) != len(b)-start {
		panic("ardp: header length")
	}
	return append(b, data...)
}

// Split cuts a message into packet data of exactly DataLen bytes (the last
// one shorter), wherever the cut falls. An empty message is one empty packet.
func Split(msg []byte) [][]byte {
	if len(msg) == 0 {
		return [][]byte{nil}
	}
	parts := make([][]byte, 0, (len(msg)+DataLen-1)/DataLen)
	for len(msg) > DataLen {
		parts = append(parts, msg[:DataLen])
		msg = msg[DataLen:]
	}
	return append(parts, msg)
}
