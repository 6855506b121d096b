// Package named picks requests of the methods whose body carries the value of the
// Mcp-Name header (2026-07-28 basic/transports/streamable-http.mdx, Standard Request
// Headers: params.name of tools/call and prompts/get, params.uri of resources/read)
// that the suite may send: a listed resource to read, a listed prompt to get. The
// H5 checks send them with the header missing, wrong or encoded.
package named

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// ArgValue is the harmless value given to every required prompt argument
// (PROMPT-GET-01 sends the same).
const ArgValue = "example"

// Request is one request of a named method, or why there is none to send.
type Request struct {
	Method string
	Params map[string]any
	Name   string // the body value Mcp-Name mirrors: params.name or params.uri
	Other  string // a value of the same kind that names nothing the server lists
	Why    string // non-empty: no request the suite may send, and why
}

// String names the request for evidence.
func (r Request) String() string {
	if r.Why != "" {
		return r.Method
	}
	return fmt.Sprintf("%s %q", r.Method, conform.Clip(r.Name, 80))
}

// list is a capability's list, walked as its group walks it (PROMPT-LIST-01 sends
// prompts/list params as an object, never absent).
type list struct {
	capability, method, key string
	base                    map[string]any
}

var (
	resourceList = list{"resources", "resources/list", "resources", nil}
	promptList   = list{"prompts", "prompts/list", "prompts", map[string]any{}}
)

// items are the list's items on the main session (the walk its group's checks
// share), or why there are none to request.
func (l list) items(t *conform.T) ([]listwalk.Item, string) {
	if _, ok := t.Session().Capabilities()[l.capability]; !ok {
		return nil, "the server declares no " + l.capability + " capability"
	}
	w := listwalk.Main(t, l.method, l.key, l.base)
	first := w.First()
	switch {
	case first == nil:
		return nil, l.method + " was not called (--max-pages?)"
	case first.Err != nil || first.Resp.IsError() || first.Result == nil:
		return nil, l.method + " gave no usable result (" + listwalk.Describe(*first, l.key) + ")"
	}
	return w.Items, ""
}

// Resource is a resources/read of the first --read URI, else of the first listed
// resource with a string uri.
func Resource(t *conform.T) Request {
	r := Request{Method: "resources/read", Other: "x-conformance:///no/such/resource"}
	if want := t.Options().Reads; len(want) > 0 {
		return r.with("uri", want[0])
	}
	items, why := resourceList.items(t)
	for _, it := range items {
		if uri, ok := it.String("uri"); ok {
			return r.with("uri", uri)
		}
	}
	r.Why = why
	if why == "" {
		r.Why = "resources/list lists no resource with a string uri"
	}
	return r
}

// Prompt is a prompts/get of the first listed prompt with a name, its required
// arguments filled with ArgValue.
func Prompt(t *conform.T) Request {
	r := Request{Method: "prompts/get", Other: "mcp_conform_no_such_prompt"}
	items, why := promptList.items(t)
	for _, it := range items {
		if name, ok := it.String("name"); ok && name != "" {
			r = r.with("name", name)
			r.Params["arguments"] = requiredArgs(it.Fields["arguments"])
			return r
		}
	}
	r.Why = why
	if why == "" {
		r.Why = "prompts/list lists no prompt with a name"
	}
	return r
}

// with sets the request's named member.
func (r Request) with(member, value string) Request {
	r.Name = value
	r.Params = map[string]any{member: value}
	return r
}

// requiredArgs fills each required PromptArgument with ArgValue.
func requiredArgs(raw json.RawMessage) map[string]string {
	args := map[string]string{}
	items, _ := toolkit.Array(raw)
	for _, it := range items {
		fields := toolkit.Object(it)
		var name string
		if json.Unmarshal(fields["name"], &name) == nil && name != "" && string(fields["required"]) == "true" {
			args[name] = ArgValue
		}
	}
	return args
}
