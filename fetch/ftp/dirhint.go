package ftp

import (
	"context"

	"github.com/urlget/urlget/fetch"
)

// dirWithoutSlash is the way forward for a URL that names a directory
// without its trailing slash (ftp://host/pub): RETR pub answered 550, so
// if CWD pub succeeds the directory is listed, as lynx and lftp do, and
// -v says so. It reports false (the RETR error stands) when the URL has a
// ;type=, asks for a resume or a HEAD, or CWD is refused too; otherwise
// the listing's result.
func (f *Fetcher) dirWithoutSlash(ctx context.Context, c *pconn, req *fetch.Request, o *options, p *plan, r *Reply) (*fetch.Resource, bool, error) {
	u := req.URL
	if r == nil || r.code != 550 || u.FTP.Type != 0 || u.FTP.Name == "" || req.Offset > 0 || req.Head {
		return nil, false, nil
	}
	cwd := append(append([]cwdArg(nil), c.path...), cwdArg{arg: p.name})
	if err := f.chdir(ctx, c, cwd, false); err != nil {
		return nil, false, nil
	}
	if f.Config.Verbose != nil {
		fetch.Logf(f.Config.Verbose, "* RETR %s: 550, CWD %s: accepted: a directory (its URL lacks the trailing \"/\"): listing it", p.name, p.name)
	}
	lp := &plan{list: true, verb: "LIST", dirSegs: append(append([]string(nil), u.FTP.CWD...), u.FTP.Name), entryURLs: true}
	if o.listOnly {
		lp.verb = "NLST"
	}
	res, err := f.list(ctx, c, req, o, lp)
	return res, true, err
}
