package mirror

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch/ftp"
)

// mdtmCheck is a file whose listing entry could not prove it unchanged
// (a date to the minute or the day, or none): its MDTM decides.
type mdtmCheck struct {
	fe     ftpEntry
	job    *ftpFileJob
	proven bool // the listing proved it unchanged (--checksum asks all the same)
}

// ftpCheckMDTM settles the files whose listing entries could not prove
// them unchanged: MDTM for all of them, sent together on c (which is in
// their directory after the listing), so a directory costs one round trip
// more, not one per file. A file whose MDTM and size are those recorded is
// unchanged; any other answer (another time, a refusal, no MDTM on this
// server) means fetching it, since nothing else can tell.
func (e *engine) ftpCheckMDTM(s *ftpState, w int, c *ftpConn, j *ftpDirJob, checks []mdtmCheck) {
	fetchIt := func(ck mdtmCheck, why string) {
		ck.job.why = why
		e.queueFile(s, ck.job)
	}
	var same []mdtmCheck // unchanged as far as times and sizes tell
	keep := func(ck mdtmCheck, why string) {
		if e.opt.Checksum {
			ck.job.why = why
			same = append(same, ck)
		} else {
			e.ftpKeep(ck.job.old, ck.job.rec, why)
		}
	}
	var ask []mdtmCheck
	for _, ck := range checks {
		switch {
		case ck.proven:
			keep(ck, "same size and modification time as recorded")
		case !c.mdtm && e.ftpListSameDay(ck.job.old, ck.fe) && racy(ck.job.old):
			fetchIt(ck, racyWhy(ck.job.old))
		case !c.mdtm && e.ftpListSameDay(ck.job.old, ck.fe):
			keep(ck, "same size, and the listing's date matches the copy's time (the server has no MDTM)")
		case !c.mdtm:
			fetchIt(ck, "the listing cannot show it unchanged and the server has no MDTM")
		default:
			ask = append(ask, ck)
		}
	}
	for start := 0; start < len(ask); start += 100 {
		batch := ask[start:min(start+100, len(ask))]
		replies, err := c.askBatch(j.path, "MDTM", batch)
		if err != nil {
			if connBroken(err) {
				e.dropConn(s, w)
				c.hash = "" // and no hashes asked on it
			}
			for _, ck := range ask[start:] {
				fetchIt(ck, "MDTM could not be asked ("+err.Error()+")")
			}
			break
		}
		for i, ck := range batch {
			old := ck.job.old
			var mt time.Time
			if replies[i].Code() == 213 {
				mt, _ = ftp.ParseMDTM(strings.TrimSpace(replies[i].Text()))
			}
			switch {
			case mt.IsZero():
				fetchIt(ck, "the listing cannot show it unchanged and MDTM gave no time")
			case old.MTimeSource != "mdtm" && old.MTimeSource != "mlsd":
				fetchIt(ck, "the listing cannot show it unchanged and no exact time was recorded")
			case stamp(mt) != old.MTime:
				fetchIt(ck, "MDTM "+stamp(mt)+", recorded "+old.MTime)
			case racy(old):
				fetchIt(ck, racyWhy(old))
			default:
				keep(ck, "same size and MDTM as recorded")
			}
		}
	}
	e.ftpCheckHash(s, w, c, j, same)
}

// sha256Hex finds a SHA-256 (64 hex digits) in a hash command's reply.
var sha256Hex = regexp.MustCompile(`\b[0-9a-fA-F]{64}\b`)

// ftpCheckHash is --checksum: files that times and sizes show unchanged
// are compared by the server's SHA-256 of them (HASH, else XSHA256), asked
// together, with the one recorded; where the server gives none, they are
// fetched and compared (sameBytes leaves a copy with the same bytes
// alone).
func (e *engine) ftpCheckHash(s *ftpState, w int, c *ftpConn, j *ftpDirJob, same []mdtmCheck) {
	fetchIt := func(ck mdtmCheck, why string) {
		ck.job.why = "mirror.Options.Checksum: " + why
		e.queueFile(s, ck.job)
	}
	for start := 0; start < len(same); start += 100 {
		batch := same[start:min(start+100, len(same))]
		if c.hash == "" {
			for _, ck := range batch {
				fetchIt(ck, "the server gives no SHA-256 (HASH, XSHA256): fetched to compare")
			}
			continue
		}
		verb := c.hash
		replies, err := c.askBatch(j.path, verb, batch)
		if err != nil {
			if connBroken(err) {
				e.dropConn(s, w)
				c.hash = ""
			}
			for _, ck := range same[start:] {
				fetchIt(ck, verb+" could not be asked ("+err.Error()+")")
			}
			return
		}
		for i, ck := range batch {
			r := replies[i]
			sum := ""
			if r.Positive() {
				sum = strings.ToLower(sha256Hex.FindString(r.Text()))
			} else if r.Code() >= 500 && r.Code() <= 502 {
				c.hash = "" // not a command of this server's
			}
			switch {
			case sum == "":
				fetchIt(ck, verb+" gave no SHA-256 ("+strconv.Quote(r.String())+"): fetched to compare")
			case sum != ck.job.old.SHA256:
				fetchIt(ck, verb+" "+sum+", recorded "+ck.job.old.SHA256)
			default:
				e.ftpKeep(ck.job.old, ck.job.rec, ck.job.why+", and the same SHA-256 ("+verb+")")
			}
		}
	}
}

// Verdicts on a file from its listing entry.
const (
	verdictFetch = iota // changed, or the copy is not there: fetch it
	verdictSame         // the listing proves it unchanged
	verdictAsk          // the listing cannot tell: ask MDTM
)

// ftpUnchanged judges a file mirrored before by its listing entry, and
// says why. Only an exact time (MLSD's modify) and the same size prove a
// file unchanged: an ls date has minutes at best (a file rewritten within
// the minute, at the same size, lists the same), only the day for older
// files, or is missing.
func (e *engine) ftpUnchanged(local *dirView, old, rec Record, fe ftpEntry) (int, string) {
	switch {
	case e.opt.Refetch:
		return verdictFetch, "mirror.Options.Refetch"
	case old.Status != StatusOK:
		return verdictFetch, "not mirrored yet (" + old.Status + ")"
	case old.Path != rec.Path || !local.intact(old.Path, old.Size):
		return verdictFetch, "the local copy is missing or not the recorded size"
	case fe.Size >= 0 && old.Size != fe.Size:
		return verdictFetch, fmt.Sprintf("size %d, recorded %d", fe.Size, old.Size)
	case e.opt.Verify && !e.fs.hashIs(old.Path, old.SHA256):
		return verdictFetch, verifyWhy
	case fe.exact && old.Key == rec.Key && rec.Key != "" && racy(old):
		return verdictFetch, racyWhy(old)
	case fe.exact && old.Key == rec.Key && rec.Key != "":
		return verdictSame, "same size and modification time as recorded"
	case fe.exact:
		return verdictFetch, "listed with another modification time"
	}
	return verdictAsk, ""
}

// ftpListSameDay is the best a server without MDTM allows: an ls time
// compared with the exact time of the copy, at the listing's precision
// (minutes for recent files, days for older ones).
func (e *engine) ftpListSameDay(old Record, fe ftpEntry) bool {
	if old.Key == "" || fe.ModTime.IsZero() || fe.Size < 0 {
		return false
	}
	if old.MTimeSource != "mdtm" && old.MTimeSource != "mlsd" {
		return old.Key == fe.key
	}
	t, err := time.Parse(time.RFC3339Nano, old.MTime)
	if err != nil {
		return false
	}
	t = t.UTC()
	lt := fe.ModTime.UTC()
	if fe.noYear {
		return t.Month() == lt.Month() && t.Day() == lt.Day() && t.Hour() == lt.Hour() && t.Minute() == lt.Minute()
	}
	return t.Year() == lt.Year() && t.Month() == lt.Month() && t.Day() == lt.Day()
}
