package telnet

// RFC 1143's Q method: the state of one side of one option, and the rules
// that make negotiation loop-free whatever the peer sends. "us" is an
// option urlget performs (we send WILL/WONT, the peer DO/DONT); "him" one
// the server performs (we send DO/DONT, the peer WILL/WONT).

type qstate uint8

const (
	qNo qstate = iota
	qYes
	qWantNo
	qWantYes
)

// side is one direction of an option: its state and the queue bit
// (opposite: a request for the other state is queued behind the one in
// flight).
type side struct {
	state    qstate
	opposite bool
}

// reply is the negotiation a received command calls for: send is 0 when
// nothing is sent; changed reports that the option turned on or off.
type reply struct {
	send    byte // cmdWILL, cmdWONT, cmdDO, cmdDONT or 0
	changed bool
	on      bool // the side's state after the command (meaningful when changed)
	err     string
}

// recvEnable applies a received WILL (him side) or DO (us side). accept
// says whether urlget agrees to the option; yesCmd and noCmd are what to
// send (DO/DONT for him, WILL/WONT for us).
func (s *side) recvEnable(accept bool, yesCmd, noCmd byte) reply {
	switch s.state {
	case qNo:
		if accept {
			s.state = qYes
			return reply{send: yesCmd, changed: true, on: true}
		}
		return reply{send: noCmd}
	case qYes:
		return reply{}
	case qWantNo:
		if s.opposite {
			s.state, s.opposite = qYes, false
			return reply{changed: true, on: true, err: "refusal answered by an agreement"}
		}
		s.state = qNo
		return reply{err: "refusal answered by an agreement"}
	default: // qWantYes
		if s.opposite {
			s.state, s.opposite = qWantNo, false
			return reply{send: noCmd}
		}
		s.state = qYes
		return reply{changed: true, on: true}
	}
}

// recvDisable applies a received WONT (him side) or DONT (us side).
func (s *side) recvDisable(yesCmd, noCmd byte) reply {
	switch s.state {
	case qNo:
		return reply{}
	case qYes:
		s.state = qNo
		return reply{send: noCmd, changed: true, on: false}
	case qWantNo:
		if s.opposite {
			s.state, s.opposite = qWantYes, false
			return reply{send: yesCmd}
		}
		s.state = qNo
		return reply{changed: true, on: false}
	default: // qWantYes
		s.state, s.opposite = qNo, false
		return reply{}
	}
}

// askEnable starts (or queues) urlget's request to turn the side on; it
// returns the command to send, or 0.
func (s *side) askEnable(yesCmd byte) byte {
	switch s.state {
	case qNo:
		s.state = qWantYes
		return yesCmd
	case qWantNo:
		s.opposite = true
	case qWantYes:
		s.opposite = false
	}
	return 0
}

// askDisable starts (or queues) urlget's request to turn the side off.
func (s *side) askDisable(noCmd byte) byte {
	switch s.state {
	case qYes:
		s.state = qWantNo
		return noCmd
	case qWantYes:
		s.opposite = true
	case qWantNo:
		s.opposite = false
	}
	return 0
}

func (s *side) on() bool { return s.state == qYes }
