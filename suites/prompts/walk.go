package prompts

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The prompts/list walk is listwalk's (server/utilities/pagination.mdx), seen
// through the members the PROMPT-* checks read of each Prompt.

// prompt is one listed Prompt where the walk met it.
type prompt struct {
	Name   string // "" when it has no string name
	Fields map[string]json.RawMessage
	Args   []argument
	Page   int
	Index  int
}

// argument is a PromptArgument with a string name.
type argument struct {
	Name     string
	Required bool
}

// String names the prompt for messages.
func (p prompt) String() string {
	return fmt.Sprintf("%q (page %d /prompts/%d)", p.Name, p.Page+1, p.Index)
}

// required lists the names of the prompt's required arguments.
func (p prompt) required() []string {
	var out []string
	for _, a := range p.Args {
		if a.Required {
			out = append(out, a.Name)
		}
	}
	return out
}

// listing is a whole prompts/list walk, with its prompts decoded.
type listing struct {
	*listwalk.Listing
	Prompts []prompt
}

// partial says, for messages, that the walk stopped early.
func (l *listing) partial() string {
	if l.Stop == toolkit.StopEnd {
		return ""
	}
	return fmt.Sprintf(" (the prompts/list walk stopped early: %s after %d page(s))", l.Stop, len(l.Pages))
}

// declared reports whether the session declared a capability.
func declared(s *conform.Session, capability string) bool {
	_, ok := s.Capabilities()[capability]
	return ok
}

// requirePrompts ends the check as not applicable when the main session did not
// declare the prompts capability.
func requirePrompts(t *conform.T) {
	if !declared(t.Session(), "prompts") {
		t.SkipNow(conform.NotApplicable, "the server did not declare the prompts capability")
	}
}

// list walks prompts/list on the main session once per revision.
func list(t *conform.T) *listing {
	s := t.Session()
	return t.Once("prompts.list:"+s.Label, func() any { return decode(listwalk.Main(t, "prompts/list", "prompts", listParams)) }).(*listing)
}

// listParams are the params of every prompts/list request: an object, never absent
// (2026-07-28 adds _meta to it).
var listParams = map[string]any{}

// decode reads the prompts of a walk.
func decode(lw *listwalk.Listing) *listing {
	l := &listing{Listing: lw}
	for _, it := range l.Items {
		l.Prompts = append(l.Prompts, decodePrompt(it.Raw, it.Page, it.Index))
	}
	return l
}

// decodePrompt reads the members a check needs of one listed Prompt.
func decodePrompt(raw json.RawMessage, pageIndex, index int) prompt {
	p := prompt{Fields: toolkit.Object(raw), Page: pageIndex, Index: index}
	_ = json.Unmarshal(p.Fields["name"], &p.Name)
	items, _ := toolkit.Array(p.Fields["arguments"])
	for _, it := range items {
		// Lenient: a required that is no boolean (judged by PROMPT-LIST-01) counts as
		// not required.
		fields := toolkit.Object(it)
		var a argument
		if json.Unmarshal(fields["name"], &a.Name) == nil && a.Name != "" {
			a.Required = string(fields["required"]) == "true"
			p.Args = append(p.Args, a)
		}
	}
	return p
}

// listed returns the main session's listing, ending the check when the server
// declared no prompts capability or the walk gave no usable first page.
func listed(t *conform.T) *listing {
	requirePrompts(t)
	l := list(t)
	if len(l.Pages) == 0 {
		t.ErrorNow("prompts/list was not called (--max-pages?)")
	}
	first := l.Pages[0]
	switch {
	case first.Err != nil:
		t.Stop(conform.Silence("a prompts/list result", first.Err))
	case first.Resp.IsError() || first.Result == nil:
		t.SkipNow(conform.NotExercised, "prompts/list gave no usable result (%s); judged by PROMPT-LIST-01", conform.Describe(first.Resp, nil))
	}
	return l
}

// named returns the listed prompts with a string name, ending the check when there
// is none.
func named(t *conform.T) (*listing, []prompt) {
	l := listed(t)
	var out []prompt
	for _, p := range l.Prompts {
		if p.Name != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.SkipNow(conform.NotExercised, "prompts/list listed no prompt with a name%s", l.partial())
	}
	return l, out
}
