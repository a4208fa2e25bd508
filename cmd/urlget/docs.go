package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// The manual page (--man, docs/urlget.1) and the completion scripts
// (--completion SHELL, docs/completion/) are generated from the fetch
// command's flags and the fetch packages' examples, like --help; a test
// keeps the copies under docs/ in step.

// runDocs is --man and --completion SHELL.
func runDocs(e env, o *fetchOpts) int {
	fs := newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})
	if o.req.man {
		writeMan(e.stdout, fs)
		return 0
	}
	switch o.req.completion {
	case "bash":
		writeBashCompletion(e.stdout, fs)
	case "zsh":
		writeZshCompletion(e.stdout, fs)
	case "fish":
		writeFishCompletion(e.stdout, fs)
	default:
		return fail(e, fetchExitUsage, "--completion %q: want bash, zsh or fish", o.req.completion)
	}
	return 0
}

// roff escapes text for a man page line.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// writeMan writes the manual page.
func writeMan(w io.Writer, fs *pflag.FlagSet) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p(`.TH URLGET 1 "" urlget "User Commands"`)
	p(".SH NAME")
	p(`urlget \- fetch any URL that RFC 1738 defines, and more`)
	p(".SH SYNOPSIS")
	p(".B urlget")
	p(`[\fIoptions\fR] \fIURL\fR...`)
	p(".br")
	p(".B urlget url")
	p(`[\fIoptions\fR] \fIURL\fR...`)
	p(".br")
	p(".B urlget mirror")
	p(`[\fIoptions\fR] \fIURL\fR \fIDIR\fR`)
	p(".br")
	p(".B urlget help")
	p(`[\fISCHEME\fR|url|mirror]`)
	p(".SH DESCRIPTION")
	_, body, _ := strings.Cut(helpHead, "\n\n")
	p("%s", roff(strings.TrimSpace(body)))
	p(".PP")
	p("%s", roff("urlget url parses, resolves and normalizes URLs without touching the network; urlget mirror copies an ftp or gopher archive into a directory and keeps it in step (see urlget mirror --help)."))
	flag := func(f *pflag.Flag) {
		p(".TP")
		names := `\fB\-\-` + roff(f.Name) + `\fR`
		if f.Shorthand != "" {
			names = `\fB\-` + roff(f.Shorthand) + `\fR, ` + names
		}
		if ph := placeholderOf(f); ph != "" {
			names += ` \fI` + roff(ph) + `\fR`
		}
		p("%s", names)
		p("%s", roff(flagHelp(f)))
	}
	p(".SH OPTIONS")
	for _, s := range helpSections(fs) {
		p(".SS %s", roff(sectionTitle(s)))
		for _, f := range s.flags {
			flag(f)
		}
	}
	p(`.SH "MIRROR OPTIONS"`)
	p("%s", roff("urlget mirror [options] URL DIR copies an ftp or gopher archive into DIR and keeps it in step. Its options:"))
	newMirrorFlags(env{stderr: io.Discard}, &mirrorOpts{}).VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			flag(f)
		}
	})
	p(".SH EXAMPLES")
	for _, sc := range knownHelpSchemes() {
		ex := fetch.Examples(sc)
		if len(ex) == 0 {
			continue
		}
		p(".SS %s", roff(sc))
		for _, e := range ex {
			p(".TP")
			p(`\fBurlget %s\fR`, roff(e.Args))
			p("%s", roff(e.Help))
		}
	}
	p(`.SH "CONFIG FILE"`)
	p("%s", roff(`Options are read from $XDG_CONFIG_HOME/.urlgetrc, else ~/.urlgetrc, before the command line (not when -q is the first option), and from every -K FILE at its place on the command line. The syntax is curl's: one option a line, its long name with or without the dashes, its value after spaces, "=" or ":", in double quotes when it holds spaces (\\, \", \t, \n, \r, \v escaped there); "url = URL" names a URL; lines starting with # are comments.`))
	p(".SH ENVIRONMENT")
	for _, v := range manEnvironment {
		p(".TP")
		p(`\fB%s\fR`, roff(v[0]))
		p("%s", roff(v[1]))
	}
	p(`.SH "EXIT STATUS"`)
	p("%s", roff(strings.TrimSpace(helpTail)))
	p(`.SH "SEE ALSO"`)
	p(`\fBcurl\fR(1), \fBlftp\fR(1), \fBlynx\fR(1)`)
}

// manEnvironment is the manual page's ENVIRONMENT section: each variable
// urlget reads, and what for.
var manEnvironment = [][2]string{
	{"http_proxy, https_proxy, ftp_proxy, gopher_proxy, news_proxy, nntp_proxy, wais_proxy", "the proxy for URLs of that scheme (http://, https:// or socks5[h]:// URL); -x overrides them"},
	{"all_proxy", "the proxy for every scheme without a variable of its own"},
	{"no_proxy", "hosts, domains, addresses and CIDR blocks reached without a proxy (\"*\": all); --noproxy overrides it"},
	{"NNTPSERVER", "the news server of news: and mid: URLs when --nntp-server is not given"},
	{"SMTP_SERVER, MAILHOST", "the mail server of mailto: URLs when --smtp-server is not given (else a local sendmail)"},
	{"SSL_CERT_FILE, SSL_CERT_DIR", "the CA certificates to trust instead of the system's (--cacert and --capath override them)"},
	{"HOME", "~/.netrc (credentials with -n/--netrc) and ~/.urlgetrc (options) are read from it"},
	{"XDG_CONFIG_HOME", "$XDG_CONFIG_HOME/.urlgetrc is read before ~/.urlgetrc"},
	{"TERM", "the terminal type a telnet or rlogin session announces"},
}

// completionFlags are the flags to complete, with what their argument is:
// "" none, "file", "dir", "shell", or "value" (any text).
type completionFlag struct {
	f   *pflag.Flag
	arg string
}

func completionFlags(fs *pflag.FlagSet) []completionFlag {
	var out []completionFlag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		ph := placeholderOf(f)
		arg := ""
		switch {
		case ph == "":
		case f.Name == "completion":
			arg = "shell"
		case strings.Contains(ph, "DIR"):
			arg = "dir"
		case strings.Contains(ph, "FILE"):
			arg = "file"
		default:
			arg = "value"
		}
		out = append(out, completionFlag{f, arg})
	})
	return out
}

const completionHeader = "generated by urlget --completion %s; do not edit"

func writeBashCompletion(w io.Writer, fs *pflag.FlagSet) {
	var all, files, dirs, values []string
	for _, c := range completionFlags(fs) {
		names := []string{"--" + c.f.Name}
		if c.f.Shorthand != "" {
			names = append(names, "-"+c.f.Shorthand)
		}
		all = append(all, names...)
		switch c.arg {
		case "file":
			files = append(files, names...)
		case "dir":
			dirs = append(dirs, names...)
		case "value":
			values = append(values, names...)
		}
	}
	fmt.Fprintf(w, "# bash completion for urlget, "+completionHeader+"\n", "bash")
	fmt.Fprintf(w, `_urlget() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        %s) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        %s) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
        %s) return ;;
        help) COMPREPLY=($(compgen -W "url mirror %s" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "%s" -- "$cur"))
    elif [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "url mirror help" -- "$cur"))
    fi
}
complete -o default -o bashdefault -F _urlget urlget
`, strings.Join(files, "|"), strings.Join(dirs, "|"), strings.Join(values, "|"), strings.Join(knownHelpSchemes(), " "), strings.Join(all, " "))
}

// zshQuote escapes a help text for an _arguments description.
func zshQuote(s string) string {
	return strings.NewReplacer(`'`, `'\''`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func writeZshCompletion(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "#compdef urlget\n# zsh completion for urlget, "+completionHeader+"\n", "zsh")
	fmt.Fprintf(w, "_arguments -s -S \\\n")
	for _, c := range completionFlags(fs) {
		action := ""
		switch c.arg {
		case "file":
			action = ":" + zshQuote(placeholderOf(c.f)) + ":_files"
		case "dir":
			action = ":" + zshQuote(placeholderOf(c.f)) + ":_files -/"
		case "shell":
			action = ":shell:(bash zsh fish)"
		case "value":
			action = ":" + zshQuote(placeholderOf(c.f)) + ": "
		}
		help := "[" + zshQuote(flagHelp(c.f)) + "]"
		if c.f.Shorthand != "" {
			fmt.Fprintf(w, "  '(-%s --%s)'{-%s,--%s}'%s%s' \\\n", c.f.Shorthand, c.f.Name, c.f.Shorthand, c.f.Name, help, action)
		} else {
			fmt.Fprintf(w, "  '--%s%s%s' \\\n", c.f.Name, help, action)
		}
	}
	fmt.Fprintf(w, "  '1: :(url mirror help)' \\\n  '*:URL:_urls'\n")
}

// fishQuote quotes a string for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFishCompletion(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "# fish completion for urlget, "+completionHeader+"\n", "fish")
	fmt.Fprintf(w, "complete -c urlget -n __fish_use_subcommand -a 'url mirror help'\n")
	fmt.Fprintf(w, "complete -c urlget -n '__fish_seen_subcommand_from help' -x -a %s\n", fishQuote("url mirror "+strings.Join(knownHelpSchemes(), " ")))
	for _, c := range completionFlags(fs) {
		line := "complete -c urlget"
		if c.f.Shorthand != "" {
			line += " -s " + fishQuote(c.f.Shorthand)
		}
		line += " -l " + c.f.Name
		switch c.arg {
		case "file":
			line += " -r -F"
		case "dir":
			line += " -r -a '(__fish_complete_directories)'"
		case "shell":
			line += " -x -a 'bash zsh fish'"
		case "value":
			line += " -x"
		}
		fmt.Fprintf(w, "%s -d %s\n", line, fishQuote(flagHelp(c.f)))
	}
}
