package refserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// The reference server's resources (server/resources.mdx, issue 34): a list longer
// than a page (paged like tools/list, by --page-size), two templates, text and blob
// contents, and subscriptions in 2024-11-05 … 2025-11-25. The resources the tool
// results embed or link (content.go) are the first three listed, readable as before.

// resourceCount is how many numbered resources (test://resources/N) follow the three
// embedded or linked ones: 12 in all, three pages at the default page size of 5.
const resourceCount = 9

// uriResourcePrefix names the numbered resources; odd ones are text, even ones blob.
const uriResourcePrefix = "test://resources/"

// The resource faults (RES-* rows). Each bites only the resources methods.
const (
	faultResCapFlagsNotBool  = "res-cap-listchanged-not-bool"
	faultResListInvalid      = "res-list-invalid"
	faultResTplInvalid       = "res-template-invalid"
	faultResTplBadSyntax     = "res-template-bad-syntax"
	faultResCursorLoop       = "res-cursor-loop"
	faultResCursorRefused    = "res-cursor-refused"
	faultResInvalidCursor1st = "res-invalid-cursor-first-page"
	faultResURIRelative      = "res-uri-relative"
	faultResLastModified     = "res-lastmodified-not-time"
	faultResReadInvalid      = "res-read-invalid"
	faultResBlobNotBase64    = "res-blob-not-base64"
	faultResReadMimeMismatch = "res-read-mime-mismatch"
	faultResNotFoundInternal = "res-notfound-internal"
	faultResNotFoundEmpty    = "res-notfound-empty"
	faultResSubUndeclared    = "res-subscribe-undeclared"
	faultResSubRefused       = "res-subscribe-refused"
	faultResUpdatedUnsub     = "res-updated-unsubscribed"
	faultResLCUndeclared     = "res-listchanged-undeclared"
	faultResPerConnection    = "res-list-per-connection"
	faultResLCNever          = "res-listchanged-never"
	faultResR5UpdatedUnsub   = "res-r5-updated-unsubscribed"
)

// resourceFaultCatalogue is the resource faults, in --list-faults order.
var resourceFaultCatalogue = []Fault{
	{Name: faultResCapFlagsNotBool, Targets: []string{"RES-CAP-FLAGS-01", "LIFE-CAPS-SHAPE-01", "LIFE-INIT-RESULT-01", "BASE-SCHEMA-01", "MOD-DISCOVER-01"},
		Masks:       resLCChecks, // listChanged is not true: no change is announced
		Description: `capabilities.resources.listChanged is the string "yes"`},
	{Name: faultResListInvalid, Targets: []string{"RES-LIST-01", "BASE-SCHEMA-01"},
		Description: "the first resource of resources/list has no name"},
	{Name: faultResTplInvalid, Targets: []string{"RES-TPL-LIST-01", "BASE-SCHEMA-01"},
		Description: "the first resource template's name is the number 42"},
	{Name: faultResTplBadSyntax, Targets: []string{"RES-TPL-01"},
		Description: `the first resource template's uriTemplate is "test://resources/{id" (an unclosed expression)`},
	{Name: faultResCursorLoop, Targets: []string{"RES-PAG-NEXTCURSOR-01"}, Masks: []string{"RES-R5-LIST-SET-01", "RES-LC-01"},
		Description: "the last page of resources/list carries the cursor of the second page again"},
	{Name: faultResCursorRefused, Targets: []string{"RES-PAG-FOLLOW-01"}, Masks: []string{"RES-R5-LIST-SET-01", "RES-LC-01"},
		Description: "every cursor sent to resources/list, also one the server issued, is refused with -32602"},
	{Name: faultResInvalidCursor1st, Targets: []string{"RES-PAG-INVALID-01"},
		Description: "an invalid cursor on resources/list is answered with the first page (a WARN)"},
	{Name: faultResURIRelative, Targets: []string{"RES-DEF-URI-01"},
		Description: `the last listed resource's uri is "resources/9", a relative reference`},
	{Name: faultResLastModified, Targets: []string{"RES-DEF-ANNOT-01"}, Revisions: []string{r3, r4, "2026-07-28"},
		Description: `every listed resource's annotations.lastModified is "yesterday" (2025-06-18+)`},
	{Name: faultResReadInvalid, Targets: []string{"RES-READ-01", "BASE-SCHEMA-01"},
		Description: "resources/read of a text resource answers a content whose text is the number 42"},
	{Name: faultResBlobNotBase64, Targets: []string{"RES-READ-BLOB-01"},
		Description: "resources/read of a binary resource answers a blob that is not base64"},
	{Name: faultResReadMimeMismatch, Targets: []string{"RES-READ-MATCH-01"},
		Description: "resources/read of a text/plain resource answers mimeType text/markdown"},
	{Name: faultResNotFoundInternal, Targets: []string{"RES-NOTFOUND-01"},
		Description: "resources/read of an unknown URI is answered with -32603"},
	{Name: faultResNotFoundEmpty, Targets: []string{"RES-NOTFOUND-01", "RES-NOTFOUND-EMPTY-R5-01"},
		Description: "resources/read of an unknown URI is answered with an empty contents array"},
	{Name: faultResSubUndeclared, Targets: []string{"RES-SUB-UNDECLARED-01"}, Revisions: []string{r1, r2, r3, r4}, Masks: []string{"RES-SUB-01", "RES-CAP-FLAGS-01"},
		Description: "capabilities.resources has no subscribe flag, yet resources/subscribe is served (2024-11-05 … 2025-11-25)"},
	{Name: faultResSubRefused, Targets: []string{"RES-SUB-01"}, Revisions: []string{r1, r2, r3, r4}, Masks: []string{"RES-SUB-UPDATED-01"},
		Description: "resources.subscribe is declared, yet resources/subscribe is answered with -32603 (2024-11-05 … 2025-11-25)"},
	{Name: faultResUpdatedUnsub, Targets: []string{"RES-SUB-UPDATED-01"}, Revisions: []string{r1, r2, r3, r4},
		Description: "resources/list without a cursor first sends notifications/resources/updated for test://resources/1, which no one subscribed to"},
	{Name: faultResLCUndeclared, Targets: []string{"RES-LC-UNDECLARED-01"}, Revisions: []string{r1, r2, r3, r4}, Masks: []string{"RES-LC-01"},
		Description: "capabilities.resources has no listChanged, yet resources/list without a cursor first sends notifications/resources/list_changed"},
	{Name: faultResLCNever, Targets: []string{"RES-LC-01"}, Masks: []string{"RES-LC-UNDECLARED-01"},
		Description: "test_trigger_tool_change changes the resource list too, but notifications/resources/list_changed is never sent"},
	{Name: faultResR5UpdatedUnsub, Targets: []string{"RES-SUB-R5-01"}, Revisions: []string{"2026-07-28"},
		Description: "a subscriptions/listen with resourceSubscriptions also gets notifications/resources/updated for a listed resource it did not name (2026-07-28)"},
	{Name: faultResPerConnection, Targets: []string{"RES-R5-LIST-SET-01"},
		Description: "the last listed resource's URI names the server process (test://resources/process-<pid>), so two stdio connections list different sets"},
}

// resourceChecksMasked are the RES checks a server without the resources capability
// leaves nothing to judge (embed-without-resources-cap): they turn not-applicable.
var resourceChecksMasked = []string{"RES-CAP-FLAGS-01", "RES-LIST-01", "RES-TPL-LIST-01", "RES-PAG-NEXTCURSOR-01",
	"RES-PAG-FOLLOW-01", "RES-PAG-INVALID-01", "RES-DEF-URI-01", "RES-DEF-ANNOT-01", "RES-TPL-01", "RES-READ-01",
	"RES-READ-BLOB-01", "RES-READ-MATCH-01", "RES-NOTFOUND-01", "RES-NOTFOUND-EMPTY-R5-01", "RES-SUB-01",
	"RES-SUB-UPDATED-01", "RES-R5-CACHE-01", "RES-R5-LIST-SET-01", "RES-LC-01", "RES-LC-UNDECLARED-01", "RES-SUB-R5-01"}

// resLCChecks are the checks a server that announces no resource list change
// leaves nothing to judge: RES-LC-01 is not applicable, RES-LC-UNDECLARED-01 sees
// no notification.
var resLCChecks = []string{"RES-LC-01", "RES-LC-UNDECLARED-01"}

// resourcesCapability is capabilities.resources: subscribe (legacy era:
// resources/subscribe; 2026-07-28: the resourceSubscriptions filter of
// subscriptions/listen, RES-SUB-R5-01) and listChanged (test_trigger_tool_change
// adds or removes dynamicResource, RES-LC-01).
func resourcesCapability(fs faultSet, modern bool) map[string]any {
	c := map[string]any{}
	if modern || !fs.on(faultResSubUndeclared) {
		c["subscribe"] = true
	}
	switch {
	case fs.on(faultResCapFlagsNotBool):
		c["listChanged"] = "yes"
	case resourcesListChangedDeclared(fs):
		c["listChanged"] = true
	}
	return c
}

// resourcesListChangedDeclared reports whether the server declares
// resources.listChanged: true (no fault takes it, or the capability, away).
func resourcesListChangedDeclared(fs faultSet) bool {
	return !fs.on(faultResCapFlagsNotBool) && !fs.on(faultResLCUndeclared) && !fs.on(faultEmbedWithoutResCap)
}

// dynamicResource is listed only while test_trigger_tool_change has
// test_dynamic_tool switched on: the trigger changes the resource list too
// (RES-LC-01), as it does the prompt list.
var dynamicResource = fixtureResource{uri: "test://dynamic/resource", name: "dynamic-resource", title: "Dynamic resource",
	description: "Present only while test_trigger_tool_change has added it.", mimeType: "text/plain", text: "A resource that comes and goes.\n"}

// resourceList is the session's resources: the fixed ones, and dynamicResource
// while the trigger has it on.
func (s *session) resourceList() []fixtureResource {
	all := fixtureResources()
	if on, _ := s.toolList(); on {
		all = append(all, dynamicResource)
	}
	return all
}

// resourcesChangedOnCall announces the trigger's change of the resource list on the
// trigger call's channel (2024-11-05 to 2025-11-25; 2026-07-28 tells the listen
// streams that asked for resourcesListChanged, toggleDynamic).
func resourcesChangedOnCall(tc *toolCall) {
	if tc.rev.Era == revision.Modern || !resourcesListChangedDeclared(tc.s.cfg.faults) || tc.fault(faultResLCNever) {
		return
	}
	if err := tc.notify(resourcesListChanged, nil); err != nil {
		tc.s.cfg.log.Printf("resources list_changed: %v", err)
	}
}

// resourcesListChanged is the resources' list_changed notification.
const resourcesListChanged = "notifications/resources/list_changed"

// listenResources honours the resource members of a subscriptions/listen filter
// (2026-07-28/basic/patterns/subscriptions.mdx): resourcesListChanged while
// resources.listChanged is declared, and resourceSubscriptions, of which the
// listed URIs are acknowledged. As resources/subscribe does in the legacy era, each
// acknowledged URI gets one notifications/resources/updated right after the
// acknowledgement, as if it changed at once (RES-SUB-R5-01 observes it without a
// trigger).
func listenResources(cfg *config, filter params, l *listener, honoured map[string]any) *rpcError {
	if raw, ok := filter["resourcesListChanged"]; ok && string(compactRaw(raw)) == "true" && resourcesListChangedDeclared(cfg.faults) {
		l.resources = true
		honoured["resourcesListChanged"] = true
	}
	raw, ok := filter["resourceSubscriptions"]
	if !ok || cfg.faults.on(faultEmbedWithoutResCap) {
		return nil
	}
	var uris []string
	if err := json.Unmarshal(raw, &uris); err != nil {
		return errInvalidParams("notifications.resourceSubscriptions must be an array of strings")
	}
	acked := []string{}
	for _, uri := range uris {
		if _, found := findResource(uri); found && !slices.Contains(acked, uri) {
			acked = append(acked, uri)
		}
	}
	honoured["resourceSubscriptions"] = acked
	updated := slices.Clone(acked)
	if cfg.faults.on(faultResR5UpdatedUnsub) {
		for _, r := range fixtureResources() {
			if !slices.Contains(acked, r.uri) {
				updated = append(updated, r.uri)
				break
			}
		}
	}
	for _, uri := range updated {
		msg, err := encodeNotification("notifications/resources/updated", map[string]any{"uri": uri, "_meta": l.tagged()})
		if err != nil {
			return errInternal(err)
		}
		l.updates = append(l.updates, msg)
	}
	return nil
}

// fixtureResource is one listed resource and its contents.
type fixtureResource struct {
	uri, name, title, description, mimeType string
	text                                    string // text contents, or
	blob                                    []byte // binary contents
}

// fixtureResources lists every resource, in list order: one list, built once per
// process (it was built again for each request that reads it), that callers read and
// may append to (it is clipped, so an append copies it).
func fixtureResources() []fixtureResource { return slices.Clip(fixtureResourceList()) }

var fixtureResourceList = sync.OnceValue(buildFixtureResources)

// buildFixtureResources builds fixtureResources' list.
func buildFixtureResources() []fixtureResource {
	png, _ := base64.StdEncoding.DecodeString(media().pngPixelBase64)
	out := []fixtureResource{
		{uri: uriEmbeddedText, name: "embedded-text", title: "Embedded text", description: "The text resource test_embedded_resource embeds.", mimeType: "text/plain", text: embeddedText},
		{uri: uriEmbeddedBlob, name: "embedded-blob", title: "Embedded image", description: "The PNG resource test_embedded_resource embeds.", mimeType: "image/png", blob: png},
		{uri: uriLinkedReadme, name: "readme.txt", title: "Fixture read-me", description: "A small text resource of the reference server.", mimeType: "text/plain", text: readmeText},
	}
	out = append(out, officialResources()...)
	for n := 1; n <= resourceCount; n++ {
		r := fixtureResource{uri: fmt.Sprintf("%s%d", uriResourcePrefix, n), name: fmt.Sprintf("resource-%d", n), title: fmt.Sprintf("Resource %d", n)}
		if n%2 == 1 {
			r.description, r.mimeType, r.text = "A numbered text resource.", "text/plain", fmt.Sprintf("Resource %d of the reference server.\n", n)
		} else {
			r.description, r.mimeType, r.blob = "A numbered binary resource.", "application/octet-stream", []byte{0x00, byte(n), 0xff, 0x10}
		}
		out = append(out, r)
	}
	return out
}

// size is the length of the contents in bytes.
func (r fixtureResource) size() int {
	if r.blob != nil {
		return len(r.blob)
	}
	return len(r.text)
}

// definition is the Resource as resources/list gives it in a revision: title from
// 2025-06-18, icons from 2025-11-25, annotations (lastModified from 2025-06-18).
func (r fixtureResource) definition(rev revision.Revision, fs faultSet, index, total int) map[string]any {
	d := map[string]any{"uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mimeType, "size": r.size()}
	a := contentAnnotations(rev)
	if fs.on(faultResLastModified) && rev.Has(revision.LastModified) {
		a["lastModified"] = "yesterday"
	}
	d["annotations"] = a
	if rev.Has(revision.Title) {
		d["title"] = r.title
	}
	if rev.Has(revision.Icons) {
		d["icons"] = fixtureIcons()
	}
	if index == 0 && fs.on(faultResListInvalid) {
		delete(d, "name")
	}
	if index == total-1 && fs.on(faultResPerConnection) {
		d["uri"] = fmt.Sprintf("%sprocess-%d", uriResourcePrefix, os.Getpid())
	}
	if index == total-1 && fs.on(faultResURIRelative) {
		d["uri"] = "resources/9"
	}
	return d
}

// contents is the resource's one ResourceContents.
func (r fixtureResource) contents(fs faultSet) map[string]any {
	c := map[string]any{"uri": r.uri, "mimeType": r.mimeType}
	switch {
	case r.blob != nil && fs.on(faultResBlobNotBase64):
		c["blob"] = "not base64!"
	case r.blob != nil:
		c["blob"] = base64.StdEncoding.EncodeToString(r.blob)
	case fs.on(faultResReadInvalid):
		c["text"] = 42
	default:
		c["text"] = r.text
	}
	if r.blob == nil && fs.on(faultResReadMimeMismatch) {
		c["mimeType"] = "text/markdown"
	}
	return c
}

// fixtureTemplates are the resource templates (one page).
func fixtureTemplates(rev revision.Revision, fs faultSet) []map[string]any {
	ts := []map[string]any{
		{"uriTemplate": uriResourcePrefix + "{id}", "name": "numbered-resource", "title": "Numbered resource", "description": "A numbered resource of the reference server.", "mimeType": "text/plain"},
		{"uriTemplate": "test://files/{+path}", "name": "files", "title": "Files", "description": "A path below test://files (none exists)."},
		officialTemplateDefinition(),
	}
	for i, t := range ts {
		t["annotations"] = contentAnnotations(rev)
		if !rev.Has(revision.Title) {
			delete(t, "title")
		}
		if rev.Has(revision.Icons) {
			t["icons"] = fixtureIcons()
		}
		if i == 0 && fs.on(faultResTplInvalid) {
			t["name"] = 42
		}
		if i == 0 && fs.on(faultResTplBadSyntax) {
			t["uriTemplate"] = uriResourcePrefix + "{id"
		}
	}
	return ts
}

// resourcePageFaults maps the resource paging faults to the tools/list paging faults
// page implements, so that a tools fault never bites resources/list and back.
func resourcePageFaults(fs faultSet) faultSet {
	out := faultSet{}
	if fs.on(faultResCursorLoop) {
		out[faultCursorLoop] = true
	}
	if fs.on(faultResInvalidCursor1st) {
		out[faultInvalidCursorFirst] = true
	}
	return out
}

// handleResourcesList returns one page of the resources (cursors as tools/list's:
// paging.go, all of version 0: a cursor issued before the trigger changed the list
// is served on the current list).
func handleResourcesList(s *session, rq *request) outcome {
	fs := s.cfg.faults
	cursor, hasCursor, e := listCursor(rq)
	if e != nil {
		return fail(e)
	}
	if hasCursor && fs.on(faultResCursorRefused) {
		return fail(errInvalidParams("invalid cursor %q", cursor))
	}
	all := s.resourceList()
	fixed := len(fixtureResources()) // the faults on the last resource bite a fixed one
	start, end, next, hasNext, e := page(len(all), s.cfg.pageSize, 0, cursor, hasCursor, resourcePageFaults(fs), 0)
	if e != nil {
		return fail(e)
	}
	defs := make([]map[string]any, 0, end-start)
	for i := start; i < end; i++ {
		defs = append(defs, all[i].definition(rq.rev, fs, i, fixed))
	}
	result := map[string]any{"resources": defs}
	if hasNext {
		result["nextCursor"] = next
	}
	var notices []string
	if !hasCursor && rq.rev.Era != revision.Modern {
		if fs.on(faultResUpdatedUnsub) {
			notices = append(notices, "notifications/resources/updated")
		}
		if fs.on(faultResLCUndeclared) {
			notices = append(notices, "notifications/resources/list_changed")
		}
	}
	if len(notices) == 0 {
		return respond(result)
	}
	// The faults' notifications go first, on the request's own channel, so that they
	// arrive before the reply on every transport.
	return outcome{async: func(context.Context) outcome {
		for _, method := range notices {
			var params any
			if method == "notifications/resources/updated" {
				params = map[string]any{"uri": uriResourcePrefix + "1"}
			}
			if msg, err := encodeNotification(method, params); err == nil {
				s.sendLogged(rq.out, msg)
			}
		}
		return respond(result)
	}}
}

// handleResourceTemplatesList returns the templates, which fit one page.
func handleResourceTemplatesList(s *session, rq *request) outcome {
	if e := noCursor(rq); e != nil {
		return fail(e)
	}
	return respond(map[string]any{"resourceTemplates": fixtureTemplates(rq.rev, s.cfg.faults)})
}

// findResource returns the resource with the URI: a fixed one, dynamicResource
// (readable also while it is not listed) or an instance of test://template/{id}/data.
func findResource(uri string) (fixtureResource, bool) {
	for _, r := range append(fixtureResources(), dynamicResource) {
		if r.uri == uri {
			return r, true
		}
	}
	return templateData(uri)
}

// handleResourcesRead serves every listed resource; other URIs are -32002 (resource
// not found, 2024-11-05 … 2025-11-25; modern.go makes it -32602 for 2026-07-28).
func handleResourcesRead(s *session, rq *request) outcome {
	fs := s.cfg.faults
	p, e := paramsObject(rq.params)
	if e != nil {
		return fail(e)
	}
	uri, e := p.reqString("uri")
	if e != nil {
		return fail(e)
	}
	r, found := findResource(uri)
	switch {
	case found:
		return respond(map[string]any{"contents": []any{r.contents(fs)}})
	case fs.on(faultResNotFoundInternal):
		return fail(errInternal(fmt.Errorf("cannot read %s", uri)))
	case fs.on(faultResNotFoundEmpty):
		return respond(map[string]any{"contents": []any{}})
	}
	return fail(&rpcError{Code: CodeResourceNotFound, Message: "Resource not found", Data: map[string]any{"uri": uri}})
}

// handleResourcesSubscribe accepts a subscription to a listed resource and, as if
// the resource changed at once, reports one update for it before the reply, on the
// request's own channel: a subscription is observable on every transport without a
// trigger. An unknown URI is -32002.
func handleResourcesSubscribe(s *session, rq *request) outcome {
	uri, e := subscriptionURI(rq)
	if e != nil {
		return fail(e)
	}
	if s.cfg.faults.on(faultResSubRefused) {
		return fail(errInternal(fmt.Errorf("cannot subscribe to %s", uri)))
	}
	return outcome{async: func(context.Context) outcome {
		if msg, err := encodeNotification("notifications/resources/updated", map[string]any{"uri": uri}); err == nil {
			s.sendLogged(rq.out, msg)
		}
		return respond(map[string]any{})
	}}
}

// handleResourcesUnsubscribe ends a subscription (nothing is kept: every update is
// sent at subscription time).
func handleResourcesUnsubscribe(_ *session, rq *request) outcome {
	if _, e := subscriptionURI(rq); e != nil {
		return fail(e)
	}
	return respond(map[string]any{})
}

// subscriptionURI reads the uri of resources/subscribe or unsubscribe: a listed
// resource's, else -32002.
func subscriptionURI(rq *request) (string, *rpcError) {
	p, e := paramsObject(rq.params)
	if e != nil {
		return "", e
	}
	uri, e := p.reqString("uri")
	if e != nil {
		return "", e
	}
	if _, found := findResource(uri); !found {
		return "", &rpcError{Code: CodeResourceNotFound, Message: "Resource not found", Data: map[string]any{"uri": uri}}
	}
	return uri, nil
}
