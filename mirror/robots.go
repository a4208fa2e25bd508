package mirror

import (
	"bufio"
	"bytes"
	"strings"
)

// robots holds the rules of a robots.txt that apply to one user agent.
type robots struct {
	rules []robotsRule
}

type robotsRule struct {
	allow  bool
	prefix string
}

// parseRobots reads a robots.txt (the original 1994 convention with the
// common Allow extension, as gopher crawlers use it at selector
// "/robots.txt") and keeps the rules for agent: the group whose
// User-agent names agent (case-insensitive substring), else the "*"
// group. Comments (#), unknown fields and blank lines between fields are
// ignored; a group is one or more User-agent lines and the rules after
// them.
func parseRobots(data []byte, agent string) *robots {
	agent = strings.ToLower(agent)
	type group struct {
		agents []string
		rules  []robotsRule
	}
	var groups []*group
	var cur *group
	inRules := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		switch k {
		case "user-agent":
			if cur == nil || inRules {
				cur = &group{}
				groups = append(groups, cur)
				inRules = false
			}
			cur.agents = append(cur.agents, strings.ToLower(v))
		case "disallow", "allow":
			if cur == nil {
				continue
			}
			inRules = true
			if v == "" {
				continue // "Disallow:" with nothing: everything allowed
			}
			cur.rules = append(cur.rules, robotsRule{allow: k == "allow", prefix: v})
		}
	}
	var star *group
	for _, g := range groups {
		for _, a := range g.agents {
			if a == "*" {
				if star == nil {
					star = g
				}
			} else if a != "" && strings.Contains(agent, a) {
				return &robots{rules: g.rules}
			}
		}
	}
	if star != nil {
		return &robots{rules: star.rules}
	}
	return &robots{}
}

// allows reports whether the selector may be fetched: the longest matching
// rule decides, Allow winning a tie; no match allows. Selectors are matched
// with and without a leading "/", as servers write them either way.
func (r *robots) allows(sel string) bool {
	if r == nil || len(r.rules) == 0 {
		return true
	}
	if !strings.HasPrefix(sel, "/") {
		sel = "/" + sel
	}
	best, allow := -1, true
	for _, ru := range r.rules {
		p := ru.prefix
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if strings.HasPrefix(sel, p) && (len(p) > best || len(p) == best && ru.allow) {
			best, allow = len(p), ru.allow
		}
	}
	return allow
}
