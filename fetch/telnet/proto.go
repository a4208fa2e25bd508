package telnet

import "strconv"

// Telnet commands (RFC 854) and the codes of RFC 1184/885 urlget sends.
const (
	cmdEOF   = 236 // end of file (RFC 1184)
	cmdSUSP  = 237 // suspend process
	cmdABORT = 238 // abort process
	cmdEOR   = 239 // end of record (RFC 885)
	cmdSE    = 240 // end of subnegotiation
	cmdNOP   = 241
	cmdDM    = 242 // data mark (Synch)
	cmdBRK   = 243 // break
	cmdIP    = 244 // interrupt process
	cmdAO    = 245 // abort output
	cmdAYT   = 246 // are you there
	cmdEC    = 247 // erase character
	cmdEL    = 248 // erase line
	cmdGA    = 249 // go ahead
	cmdSB    = 250 // subnegotiation begins
	cmdWILL  = 251
	cmdWONT  = 252
	cmdDO    = 253
	cmdDONT  = 254
	cmdIAC   = 255
)

// Options urlget speaks; every other one is refused.
const (
	optBINARY     = 0  // RFC 856
	optECHO       = 1  // RFC 857
	optSGA        = 3  // RFC 858
	optTTYPE      = 24 // RFC 1091
	optNAWS       = 31 // RFC 1073
	optTSPEED     = 32 // RFC 1079
	optNEWENVIRON = 39 // RFC 1572
)

// Subnegotiation codes.
const (
	sbIS   = 0
	sbSEND = 1

	envVAR     = 0 // NEW-ENVIRON
	envVALUE   = 1
	envESC     = 2
	envUSERVAR = 3
)

var cmdNames = map[byte]string{
	cmdEOF: "EOF", cmdSUSP: "SUSP", cmdABORT: "ABORT", cmdEOR: "EOR", cmdSE: "SE", cmdNOP: "NOP",
	cmdDM: "DM", cmdBRK: "BRK", cmdIP: "IP", cmdAO: "AO", cmdAYT: "AYT", cmdEC: "EC", cmdEL: "EL",
	cmdGA: "GA", cmdSB: "SB", cmdWILL: "WILL", cmdWONT: "WONT", cmdDO: "DO", cmdDONT: "DONT", cmdIAC: "IAC",
}

var optNames = map[byte]string{
	optBINARY: "BINARY", optECHO: "ECHO", optSGA: "SGA", 5: "STATUS", 6: "TIMING-MARK",
	optTTYPE: "TTYPE", 25: "EOR", optNAWS: "NAWS", optTSPEED: "TSPEED", 33: "LFLOW",
	34: "LINEMODE", 35: "XDISPLOC", 36: "OLD-ENVIRON", 37: "AUTHENTICATION", 38: "ENCRYPT",
	optNEWENVIRON: "NEW-ENVIRON",
}

func cmdName(c byte) string {
	if n, ok := cmdNames[c]; ok {
		return n
	}
	return strconv.Itoa(int(c))
}

func optName(o byte) string {
	if n, ok := optNames[o]; ok {
		return n
	}
	return strconv.Itoa(int(o))
}

// commands are the names the escape prompt's "send" takes, with their codes.
var commands = []struct {
	name string
	code byte
	help string
}{
	{"brk", cmdBRK, "break"},
	{"ip", cmdIP, "interrupt process"},
	{"ao", cmdAO, "abort output"},
	{"ayt", cmdAYT, "are you there"},
	{"ec", cmdEC, "erase character"},
	{"el", cmdEL, "erase line"},
	{"eof", cmdEOF, "end of file"},
	{"susp", cmdSUSP, "suspend process"},
	{"abort", cmdABORT, "abort process"},
	{"nop", cmdNOP, "no operation"},
	{"ga", cmdGA, "go ahead"},
}
