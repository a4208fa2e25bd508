package main

import (
	"fmt"
	"io"
	"slices"
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
	p(".B urlget serve")
	p(`[\fIoptions\fR]`)
	p(".br")
	p(".B urlget help")
	p(`[\fISCHEME\fR|url|mirror|serve]`)
	p(".SH DESCRIPTION")
	_, body, _ := strings.Cut(helpHead, "\n\n")
	p("%s", roff(strings.TrimSpace(body)))
	p(".PP")
	p("%s", roff("urlget url parses, resolves and normalizes URLs without touching the network; urlget mirror copies an ftp or gopher archive into a directory and keeps it in step (see urlget mirror --help); urlget serve shows every scheme to web browsers and HTTP proxy clients (see urlget serve --help)."))
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
	p(`.SH "SERVE OPTIONS"`)
	p("%s", roff("urlget serve [options] is a web gateway to every scheme urlget fetches: a page with an address field for browsers, and an RFC 1630 proxy for HTTP clients (see urlget serve --help). Its options:"))
	newServeFlags(env{stderr: io.Discard}, &serveOpts{}).VisitAll(func(f *pflag.Flag) {
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

// completionFlag is a flag to complete, with what its argument is: ""
// none, "file", "dir", "shell", "values" (one of values) or "value" (any
// text).
type completionFlag struct {
	f      *pflag.Flag
	arg    string
	values []string
}

// completionValues are the values of the flags that take one of a few:
// the options declared with Values, and --completion.
func completionValues() map[string][]string {
	m := map[string][]string{"completion": {"bash", "zsh", "fish"}}
	for _, o := range fetch.RegisteredOptions() {
		if len(o.Values) > 0 {
			m[o.FlagName()] = o.Values
		}
	}
	return m
}

func completionFlags(fs *pflag.FlagSet) []completionFlag {
	var out []completionFlag
	values := completionValues()
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		ph := placeholderOf(f)
		c := completionFlag{f: f}
		switch {
		case ph == "" && f.Value.Type() == "bool":
		case values[f.Name] != nil:
			c.arg, c.values = "values", values[f.Name]
		case strings.Contains(ph, "DIR"):
			c.arg = "dir"
		case strings.Contains(ph, "FILE"):
			c.arg = "file"
		default:
			c.arg = "value"
		}
		out = append(out, c)
	})
	return out
}

// completionCommand is one command's flags: the fetch command's ("") or a
// subcommand's (url, mirror, serve).
type completionCommand struct {
	name  string
	flags []completionFlag
}

func completionCommands(fs *pflag.FlagSet) []completionCommand {
	urlFS, _ := newURLFlags(env{stderr: io.Discard})
	return []completionCommand{
		{"", completionFlags(fs)},
		{"url", completionFlags(urlFS)},
		{"mirror", completionFlags(newMirrorFlags(env{stderr: io.Discard}, &mirrorOpts{}))},
		{"serve", completionFlags(newServeFlags(env{stderr: io.Discard}, &serveOpts{}))},
	}
}

// schemeStarts are what a URL begins with, one per scheme: "http://",
// "news:" (the Opaque schemes, without an authority, take no "//").
func schemeStarts() []string {
	var out []string
	for _, s := range knownHelpSchemes() {
		if fetch.HasCaps(s, fetch.Opaque) {
			out = append(out, s+":")
		} else {
			out = append(out, s+"://")
		}
	}
	return out
}

const completionHeader = "generated by urlget --completion %s; do not edit"

func writeBashCompletion(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "# bash completion for urlget, "+completionHeader+"\n", "bash")
	fmt.Fprintf(w, "_urlget() {\n")
	fmt.Fprintf(w, "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=fetch flags\n")
	fmt.Fprintf(w, "    case ${COMP_WORDS[1]} in url|mirror|serve) cmd=${COMP_WORDS[1]} ;; esac\n")
	fmt.Fprintf(w, "    case $cmd:$prev in\n")
	var flagLists []string
	for _, c := range completionCommands(fs) {
		name := c.name
		if name == "" {
			name = "fetch"
		}
		var all []string
		byArg := map[string][]string{}
		for _, cf := range c.flags {
			names := []string{"--" + cf.f.Name}
			if cf.f.Shorthand != "" {
				names = append(names, "-"+cf.f.Shorthand)
			}
			all = append(all, names...)
			for _, n := range names {
				key := cf.arg
				if key == "values" {
					key = "values:" + strings.Join(cf.values, " ")
				}
				byArg[key] = append(byArg[key], name+":"+n)
			}
		}
		flagLists = append(flagLists, fmt.Sprintf("        %s) flags=%q ;;\n", name, strings.Join(all, " ")))
		keys := make([]string, 0, len(byArg))
		for k := range byArg {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			pat := strings.Join(byArg[k], "|")
			switch {
			case k == "file":
				fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", pat)
			case k == "dir":
				fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", pat)
			case k == "value":
				fmt.Fprintf(w, "        %s) return ;;\n", pat)
			case strings.HasPrefix(k, "values:"):
				fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", pat, strings.TrimPrefix(k, "values:"))
			}
		}
	}
	fmt.Fprintf(w, "        fetch:help) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", "url mirror serve "+strings.Join(knownHelpSchemes(), " "))
	fmt.Fprintf(w, "    esac\n")
	fmt.Fprintf(w, "    case $cmd in\n%s    esac\n", strings.Join(flagLists, ""))
	fmt.Fprintf(w, `    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return
    fi
    local words=%q
    [[ $COMP_CWORD -eq 1 ]] && words="url mirror serve help $words"
    if [[ -n $cur ]]; then
        # the start of a URL: its scheme, with no space after it
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        [[ ${#COMPREPLY[@]} -gt 0 && ${COMPREPLY[0]} == *: || ${COMPREPLY[0]} == *:// ]] && compopt -o nospace 2>/dev/null
    elif [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "url mirror serve help" -- "$cur"))
    fi
}
complete -o default -o bashdefault -F _urlget urlget
`, strings.Join(schemeStarts(), " "))
}

// zshQuote escapes a help text for an _arguments description.
func zshQuote(s string) string {
	return strings.NewReplacer(`'`, `'\''`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func writeZshCompletion(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "#compdef urlget\n# zsh completion for urlget, "+completionHeader+"\n", "zsh")
	fmt.Fprintf(w, "_urlget_url() {\n    # the start of a URL: its scheme, with no space after it\n")
	fmt.Fprintf(w, "    if [[ -n $PREFIX && $PREFIX != *:* ]]; then\n        compadd -S '' -- %s && return\n    fi\n    _files\n}\n", strings.Join(schemeStarts(), " "))
	fmt.Fprintf(w, "_urlget() {\n    case $words[2] in\n")
	cmds := completionCommands(fs)
	slices.Reverse(cmds) // the subcommands' cases before the catch-all
	for _, c := range cmds {
		name, rest := c.name, "'1: :(url mirror serve help)' '*:URL:_urlget_url'"
		if name == "" {
			name = "*"
		} else {
			// the subcommand's own arguments start after it
			fmt.Fprintf(w, "    %s)\n        shift words; (( CURRENT-- ))\n", name)
			rest = "'*:URL:_urlget_url'"
		}
		if c.name == "" {
			fmt.Fprintf(w, "    %s)\n        if [[ $words[CURRENT-1] == help ]]; then compadd -- url mirror serve %s; return; fi\n", name, strings.Join(knownHelpSchemes(), " "))
		}
		fmt.Fprintf(w, "        _arguments -s -S \\\n")
		for _, cf := range c.flags {
			action := ""
			switch cf.arg {
			case "file":
				action = ":" + zshQuote(placeholderOf(cf.f)) + ":_files"
			case "dir":
				action = ":" + zshQuote(placeholderOf(cf.f)) + ":_files -/"
			case "values":
				action = ":" + zshQuote(cf.f.Name) + ":(" + strings.Join(cf.values, " ") + ")"
			case "value":
				action = ":" + zshQuote(placeholderOf(cf.f)) + ": "
			}
			help := "[" + zshQuote(firstLine(flagHelp(cf.f))) + "]"
			if cf.f.Shorthand != "" {
				fmt.Fprintf(w, "            '(-%s --%s)'{-%s,--%s}'%s%s' \\\n", cf.f.Shorthand, cf.f.Name, cf.f.Shorthand, cf.f.Name, help, action)
			} else {
				fmt.Fprintf(w, "            '--%s%s%s' \\\n", cf.f.Name, help, action)
			}
		}
		fmt.Fprintf(w, "            %s\n        ;;\n", rest)
	}
	fmt.Fprintf(w, "    esac\n}\n_urlget \"$@\"\n")
}

// firstLine is the first line of a flag's help (url's run over several).
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// fishQuote quotes a string for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFishCompletion(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "# fish completion for urlget, "+completionHeader+"\n", "fish")
	fmt.Fprintf(w, "complete -c urlget -n __fish_use_subcommand -a 'url mirror serve help'\n")
	fmt.Fprintf(w, "complete -c urlget -n '__fish_seen_subcommand_from help' -x -a %s\n", fishQuote("url mirror serve "+strings.Join(knownHelpSchemes(), " ")))
	// The start of a URL: its scheme (fish adds no space after ":" or "/").
	fmt.Fprintf(w, "complete -c urlget -n 'not __fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(schemeStarts(), " ")))
	for _, c := range completionCommands(fs) {
		cond := "not __fish_seen_subcommand_from url mirror serve"
		if c.name != "" {
			cond = "__fish_seen_subcommand_from " + c.name
		}
		for _, cf := range c.flags {
			line := "complete -c urlget -n " + fishQuote(cond)
			if cf.f.Shorthand != "" {
				line += " -s " + fishQuote(cf.f.Shorthand)
			}
			line += " -l " + cf.f.Name
			switch cf.arg {
			case "file":
				line += " -r -F"
			case "dir":
				line += " -r -a '(__fish_complete_directories)'"
			case "values":
				line += " -x -a " + fishQuote(strings.Join(cf.values, " "))
			case "value":
				line += " -x"
			}
			fmt.Fprintf(w, "%s -d %s\n", line, fishQuote(firstLine(flagHelp(cf.f))))
		}
	}
}
