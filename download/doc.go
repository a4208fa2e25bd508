// Package download makes curl's transfer of one URL into a file or a
// stream with a fetch.Client: what urlget's fetch command does for each
// URL, for any Go program that wants the same rules.
//
// A Downloader holds the settings of a run — where files go, whether to
// resume, the request body, conditions, what to record — and its Do
// fetches one URL into one Target:
//
//   - retries through fetch.RetryPolicy, a partial transfer going on from
//     where it stopped (and a retried status's body never written);
//   - a file is written as NAME.part and renamed over NAME only when the
//     transfer is complete, so an existing NAME is never destroyed and
//     nothing half-written sits under it; a failed transfer keeps what it
//     received in NAME.part (Result.Kept) for a later Resume to continue;
//   - Resume (curl's -C): from the end of NAME.part, or of NAME itself,
//     appended to only once the server has confirmed the offset. A
//     NAME.part that urlget creates carries the extended attribute
//     user.urlget.part ("SECONDS URL": the resource's modification time
//     and URL, credentials left out), written as the file is created (a
//     part left by a kill has it) and removed when it becomes NAME; only
//     such a part is checked against the resource (If-Range, MDTM), since
//     a file's modification time proves nothing about where its bytes
//     came from. Any other part (one curl or a browser wrote, NAME
//     itself) is resumed as curl resumes it: the plain offset, its bytes
//     taken as they are. A local file larger than the resource is left as
//     it is (ErrResume, curl's 36), one of the resource's very size too
//     (success: curl's "already downloaded"), and a transfer that must
//     start again says why (Warn);
//   - Remote targets (curl's -O): the file is named after the URL, and a
//     name that could leave the directory is refused;
//   - time and ETag conditions (TimeCondition reads curl's -z argument,
//     ReadETag its --etag-compare file),
//     byte ranges, head requests (the header text curl -I prints), the
//     response header before the body (-i), a header dump (-D) and
//     --etag-save, extended attributes (--xattr);
//   - the request body: form data, JSON, multipart forms, an upload file,
//     search words for the schemes that take them.
//
// What belongs to a program's user interface reaches a Downloader through
// its function fields, as net/http's Client.CheckRedirect does: asking
// the user for input a server wants (Ask), a progress meter (Meter,
// Sending), warnings (Warn, Retrying), and an interactive session's
// terminal (Session). Left nil, each does nothing.
//
// Parallel runs many transfers at once, as curl's -Z does: through one
// Client, each with a copy buffer of its own, two naming one file one
// after the other.
//
// Result is what is known of a transfer when it ends; a WriteOut renders
// it as curl's --write-out does.
//
// Output files and their .part files are created with the permissions of
// the file replaced (else 0666 less the umask); a symbolic link named as
// the output is followed, a .part file that is a link is refused.
package download
