package refserver

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Prompts ({rev}/server/prompts.mdx): three prompts served two to a page, one with
// a required argument, one whose messages hold every content type of the revision,
// one with a required and an optional argument that completion/complete completes
// (completion.go), then the four the official conformance suite gets (official.go).
// Each rule has a fault (faults.go, the PROMPT and COMPL block).

// promptPageSize is how many prompts a prompts/list page holds: the prompts span
// several pages, so that the suite walks them by cursor (PROMPT-LIST-01).
const promptPageSize = 2

// fixturePrompt is one prompt of the reference server.
type fixturePrompt struct {
	name, title, description string
	args                     []promptArg
	// messages builds the prompt's messages for the revision from its arguments.
	messages func(rev revision.Revision, args map[string]string, fs faultSet) []map[string]any
}

// promptArg is one PromptArgument.
type promptArg struct {
	name, description string
	required          bool
}

// fixturePrompts are the prompts, in listing order.
var fixturePrompts = []fixturePrompt{
	{
		name: "greeting", title: "Greeting", description: "A greeting for someone, by name.",
		args: []promptArg{{name: "name", description: "Who to greet", required: true}},
		messages: func(_ revision.Revision, args map[string]string, _ faultSet) []map[string]any {
			return []map[string]any{promptMessage("user", textBlock("Please greet "+args["name"]+"."))}
		},
	},
	{
		name: "media_showcase", title: "Media showcase", description: "Messages holding every content type of the revision.",
		messages: func(rev revision.Revision, _ map[string]string, fs faultSet) []map[string]any {
			img := imageBlock()
			if fs.on(faultPromptImageBase64) {
				img = block{"type": "image", "data": "not base64: *** ", "mimeType": "image/png"}
			}
			return []map[string]any{
				promptMessage("user", textBlock("Describe the media below.")),
				promptMessage("user", img),
				promptMessage("assistant", audioBlock(rev, false)),
				promptMessage("user", embeddedTextBlock()),
				promptMessage("assistant", resourceLinkBlock(rev, false)),
			}
		},
	},
	{
		name: "code_review", title: "Code review", description: "Review code in a language, in a style.",
		args: []promptArg{
			{name: "language", description: "The programming language", required: true},
			{name: "style", description: "The review style"},
		},
		messages: func(_ revision.Revision, args map[string]string, fs faultSet) []map[string]any {
			role := "user"
			if fs.on(faultPromptBadRole) {
				role = "system"
			}
			text := "Review this " + args["language"] + " code."
			if s := args["style"]; s != "" {
				text += " Style: " + s + "."
			}
			return []map[string]any{promptMessage(role, textBlock(text))}
		},
	},
}

// promptMessage is a PromptMessage.
func promptMessage(role string, content block) map[string]any {
	return map[string]any{"role": role, "content": content}
}

// findPrompt returns the session's prompt with the name, or nil.
func (s *session) findPrompt(rev revision.Revision, name string) *fixturePrompt {
	all := s.promptList(rev)
	for i := range all {
		if all[i].name == name {
			return &all[i]
		}
	}
	return nil
}

// definition is the Prompt as the revision has it: title from 2025-06-18, icons
// from 2025-11-25.
func (p *fixturePrompt) definition(rev revision.Revision, fs faultSet) map[string]any {
	d := map[string]any{"name": p.name, "description": p.description}
	if rev.Has(revision.Title) {
		d["title"] = p.title
	}
	if rev.Has(revision.Icons) {
		d["icons"] = fixtureIcons()
	}
	if len(p.args) > 0 {
		args := make([]map[string]any, len(p.args))
		for i, a := range p.args {
			args[i] = map[string]any{"name": a.name, "description": a.description, "required": a.required}
			if fs.on(faultPromptArgInvalid) && a.required {
				args[i]["required"] = "yes"
			}
		}
		d["arguments"] = args
	}
	return d
}

// promptCapabilities adds the prompts and completions capabilities: prompts in every
// revision, completions from 2025-03-26 (2024-11-05 has no such capability, and
// completion/complete is served there all the same).
func promptCapabilities(caps map[string]any, rev revision.Revision, fs faultSet) {
	switch {
	case fs.on(faultPromptsUndeclared):
		// prompts/* served without the capability (PROMPT-CAP-01, ERR-NOTDECLARED-01).
	case fs.on(faultPromptsLCNotBool):
		caps["prompts"] = map[string]any{"listChanged": "yes"}
	case fs.on(faultPromptsLCUndeclared):
		caps["prompts"] = map[string]any{}
	default:
		caps["prompts"] = map[string]any{"listChanged": true}
	}
	if !rev.Before("2025-03-26") && !fs.on(faultCompletionsUndeclared) {
		caps["completions"] = map[string]any{}
	}
}

// handlePromptsList serves one page of the prompts (cursors as tools/list's:
// paging.go; the list never changes, its version is 0).
func handlePromptsList(s *session, rq *request) outcome {
	fs := s.cfg.faults
	cursor, hasCursor, e := listCursor(rq)
	if e != nil {
		return fail(e)
	}
	all := s.promptList(rq.rev)
	// The prompts paging fault is the tools/list fault page implements
	// (PROMPT-LIST-CURSOR-01), so that a tools fault never bites prompts/list.
	pageFaults := faultSet{faultInvalidCursorFirst: fs.on(faultPromptsCursorFirst)}
	start, end, next, hasNext, e := page(len(all), promptPageSize, 0, cursor, hasCursor, pageFaults, 0)
	if e != nil {
		return fail(e)
	}
	defs := make([]map[string]any, 0, end-start)
	for i := start; i < end; i++ {
		defs = append(defs, all[i].definition(rq.rev, fs))
	}
	result := map[string]any{"prompts": defs}
	if hasNext {
		result["nextCursor"] = next
	}
	oc := respond(result)
	if fs.on(faultPromptsLCUndeclared) || fs.on(faultPromptsLCBadShape) {
		// A list_changed that announces no change, after a listing: undeclared
		// (PROMPT-LC-UNDECLARED-01) or malformed (PROMPT-LC-SHAPE-01). 2026-07-28
		// delivers list_changed only on a subscription stream: not there.
		if rq.rev.Era != revision.Modern {
			var params any
			if fs.on(faultPromptsLCBadShape) {
				params = []string{"changed"}
			}
			oc.after = func() {
				msg, err := encodeNotification(promptsListChanged, params)
				if err != nil {
					s.cfg.log.Printf("prompts list_changed: %v", err)
					return
				}
				s.sendLogged(rq.out, msg)
			}
		}
	}
	return oc
}

// promptsListChanged is the prompts' list_changed notification.
const promptsListChanged = "notifications/prompts/list_changed"

// handlePromptsGet resolves a prompt: an unknown name or a missing required argument
// is -32602 ({rev}/server/prompts.mdx, Error Handling).
func handlePromptsGet(s *session, rq *request) outcome {
	fs := s.cfg.faults
	p, e := paramsObject(rq.params)
	if e != nil {
		return fail(e)
	}
	name, e := p.reqString("name")
	if e != nil {
		return fail(e)
	}
	args, e := stringArguments(p, "arguments")
	if e != nil {
		return fail(e)
	}
	pr := s.findPrompt(rq.rev, name)
	if pr == nil {
		if fs.on(faultPromptUnknownInternal) {
			return fail(errInternal(errors.New("no prompt named " + name)))
		}
		return fail(errInvalidParams("Unknown prompt: %s", name))
	}
	for _, a := range pr.args {
		if _, ok := args[a.name]; a.required && !ok && !fs.on(faultPromptMissingArgOK) {
			return fail(errInvalidParams("prompt %s: missing required argument %q", name, a.name))
		}
	}
	if pr.name == promptIntroduce {
		return getIntroduce(s, rq, p)
	}
	return respond(map[string]any{"description": pr.description, "messages": pr.messages(rq.rev, args, fs)})
}

// stringArguments reads an optional object of string values (prompts/get
// arguments, completion/complete context.arguments).
func stringArguments(p params, key string) (map[string]string, *rpcError) {
	obj, _, e := p.optObject(key)
	if e != nil {
		return nil, e
	}
	out := make(map[string]string, len(obj))
	for k, raw := range obj {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, errInvalidParams("%s.%s must be a string", key, k)
		}
		out[k] = v
	}
	return out, nil
}

// dynamicPrompt is listed only while test_trigger_tool_change has test_dynamic_tool
// switched on: the trigger changes the prompt list too (PROMPT-LC-01).
var dynamicPrompt = fixturePrompt{
	name: "dynamic_prompt", title: "Dynamic prompt", description: "Present only while test_trigger_tool_change has added it.",
	messages: func(revision.Revision, map[string]string, faultSet) []map[string]any {
		return []map[string]any{promptMessage("user", textBlock("A prompt that comes and goes."))}
	},
}

// promptList is the session's prompts in the request's revision: the fixed ones,
// introduce_user in 2026-07-28, and dynamic_prompt while the trigger has it on.
func (s *session) promptList(rev revision.Revision) []fixturePrompt {
	all := append(slices.Clone(fixturePrompts), officialPrompts...)
	if rev.Era == revision.Modern {
		all = append(all, introducePrompt)
	}
	if on, _ := s.toolList(); on {
		return append(slices.Clone(all), dynamicPrompt)
	}
	return all
}

// promptIntroduce is the prompt whose prompts/get asks for input (2026-07-28).
const promptIntroduce = "introduce_user"

// introducePrompt exists only in 2026-07-28: its prompts/get answers input_required
// (basic/patterns/mrtr.mdx) asking for the user's name by form elicitation, as
// test_elicitation does, and the retry that carries the answer gets the messages.
var introducePrompt = fixturePrompt{
	name: promptIntroduce, title: "Introduce the user", description: "An introduction of the user, whose name the server asks for (input_required).",
}

// getIntroduce serves introduce_user: -32021 without form elicitation declared (the
// client's capabilities bound what may be asked: MOD-MRTR-01), else the MRTR
// exchange of test_elicitation, run as a call of a tool of the prompt's name (its
// requestState is bound to that name).
func getIntroduce(s *session, rq *request, p params) outcome {
	tc := &toolCall{s: s, requestID: rq.id, rev: rq.rev, args: map[string]any{}, callParams: p, out: rq.out}
	if !elicitationFormDeclared(tc) && !tc.fault(faultR5CapAssumed) && !tc.fault(faultR5PromptInputUndeclared) {
		return fail(errMissingCapability(map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}))
	}
	r := tc.mrtrAsk(inputKeyName, "elicitation/create", "ElicitResult", nameForm("Please tell the mcp-conform fixture your name, to introduce you."))
	switch {
	case r.rpcErr != nil:
		return fail(r.rpcErr)
	case r.members != nil:
		return respond(r.members)
	}
	// The retry's answer, an ElicitResult validated by mrtrAsk, as compact JSON.
	var answer struct {
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	}
	if len(r.content) > 0 {
		text, _ := r.content[0]["text"].(string)
		_ = json.Unmarshal([]byte(text), &answer)
	}
	return respond(map[string]any{"description": introducePrompt.description,
		"messages": []map[string]any{promptMessage("user", textBlock("Please introduce "+answer.Content.Name+" to the team."))}})
}

// promptsListChangedDeclared reports whether the server declares
// prompts.listChanged: true (no fault takes it away).
func promptsListChangedDeclared(fs faultSet) bool {
	return !fs.on(faultPromptsUndeclared) && !fs.on(faultPromptsLCNotBool) && !fs.on(faultPromptsLCUndeclared)
}

// promptsChangedOnCall announces the trigger's change of the prompt list on the
// trigger call's channel (2024-11-05 to 2025-11-25; 2026-07-28 tells listen streams,
// toggleDynamic), as a server that declared prompts.listChanged does.
func promptsChangedOnCall(tc *toolCall) {
	if tc.rev.Era == revision.Modern || !promptsListChangedDeclared(tc.s.cfg.faults) || tc.fault(faultPromptsLCNever) {
		return
	}
	if err := tc.notify(promptsListChanged, nil); err != nil {
		tc.s.cfg.log.Printf("prompts list_changed: %v", err)
	}
}

// listenersWhere returns the listen streams whose notification filter asked for
// a list's changes (wants).
func (ms *modernState) listenersWhere(wants func(*listener) bool) []*listener {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var out []*listener
	for l := range ms.listeners {
		if wants(l) {
			out = append(out, l)
		}
	}
	return out
}

// announceListChanged sends a list's list_changed notification, tagged, to every
// listen stream that asked for it (2026-07-28), unless a fault keeps it silent.
// The tools' own (announceToolsChanged) has faults of its tag besides.
func announceListChanged(cfg *config, method string, tell []*listener, silent bool) {
	if silent {
		return
	}
	for _, l := range tell {
		msg, err := encodeNotification(method, map[string]any{"_meta": l.tagged()})
		if err != nil {
			cfg.log.Printf("%s: %v", method, err)
			continue
		}
		if err := l.send(msg); err != nil {
			cfg.log.Printf("%s to subscription %s: %v", method, l.id, err)
		}
	}
}
