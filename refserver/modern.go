package refserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The eras the reference server can serve (Options.Era). The modern era is the
// stateless protocol of 2026-07-28: no initialize, every request carries its version
// and the client's capabilities in _meta.
const (
	EraDual   = "dual"   // legacy initialize sessions and modern requests (the default)
	EraModern = "modern" // 2026-07-28 only: initialize is refused, naming the versions
	EraLegacy = "legacy" // 2024-11-05 … 2025-11-25 only, as before 2026-07-28 existed
)

// Reserved _meta keys of the modern era.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID  = "io.modelcontextprotocol/subscriptionId"
)

// Error codes the modern era added.
const (
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

// Caching hints of the cacheable modern results: the tool list changes only through
// test_trigger_tool_change (which listen streams announce), and nothing the server
// returns depends on who asks.
const (
	modernTTLMs      = 60000
	modernCacheScope = "public"
)

// cacheableMethods are the methods whose complete results carry ttlMs and cacheScope
// (2026-07-28 server/utilities/caching).
var cacheableMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
	"prompts/list": true,
}

// modernRevisions returns the modern revisions served in an era.
func modernRevisions(era string) []revision.Revision {
	if era == EraLegacy {
		return nil
	}
	return revision.InEra(revision.Modern)
}

// checkEra validates Options.Era ("" is EraDual).
func checkEra(era string) (string, error) {
	switch era {
	case "", EraDual:
		return EraDual, nil
	case EraModern, EraLegacy:
		return era, nil
	}
	return "", fmt.Errorf("unknown era %q (want %s, %s or %s)", era, EraDual, EraModern, EraLegacy)
}

// servesLegacy and servesModern report which eras the server answers.
func (c *config) servesLegacy() bool { return c.era != EraModern }
func (c *config) servesModern() bool { return c.era != EraLegacy }

// modernVersionNames lists the modern protocolVersion strings served.
func (c *config) modernVersionNames() []string {
	var out []string
	for _, r := range c.modernRevs {
		out = append(out, r.Name)
	}
	return out
}

// modernRevision finds a served modern revision by name.
func (c *config) modernRevision(name string) (revision.Revision, bool) {
	for _, r := range c.modernRevs {
		if r.Name == name {
			return r, true
		}
	}
	return revision.Revision{}, false
}

// modernState is what the modern era shares across every request of one server (one
// stdio process or one HTTP handler): the tool list (test_trigger_tool_change makes
// a global change, which 2026-07-28 allows), the last cancellation, and the open
// subscriptions/listen streams. Nothing in it depends on which connection asks.
type modernState struct {
	mu            sync.Mutex
	dynamicOn     bool
	listVersion   int
	lastCancelled string
	listeners     map[*listener]bool
	// cursorsServed counts tools/list requests per cursor across the modern
	// requests, each of which has its own session (only a fault reads it).
	cursorsServed map[string]int
	// firstPages counts tools/list requests without a cursor (only a fault reads it).
	firstPages int
	// declaredCaps is what fault r5-sticky-capabilities remembers: the union of the
	// client capabilities earlier modern requests declared.
	declaredCaps params
}

// firstPageServed counts a tools/list request without a cursor and returns how many
// came before it.
func (ms *modernState) firstPageServed() int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	n := ms.firstPages
	ms.firstPages++
	return n
}

// stickyCaps merges the capabilities remembered from earlier requests into caps and
// remembers caps' own (fault r5-sticky-capabilities: the statelessness it breaks).
func (ms *modernState) stickyCaps(caps params) params {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.declaredCaps == nil {
		ms.declaredCaps = params{}
	}
	for k, v := range caps {
		ms.declaredCaps[k] = v
	}
	merged := params{}
	for k, v := range ms.declaredCaps {
		merged[k] = v
	}
	return merged
}

func newModernState() *modernState { return &modernState{listeners: map[*listener]bool{}} }

// listener is one open subscriptions/listen stream. gate orders its messages: no
// notification is sent before the acknowledgement (see start).
type listener struct {
	id    wire.ID
	tools bool // toolsListChanged was requested and is honoured
	gate  sync.Mutex
	out   sink
	// stray is sent right after the acknowledgement (a fault: a request-scoped
	// notification on the listen stream); nil normally.
	stray []byte
	// ended is closed once the subscription is over (the client cancelled it or the
	// server tore it down): its stream, if it has one of its own, then ends.
	ended   chan struct{}
	endOnce sync.Once
	// forget, when set, drops the subscription from its connection's records once
	// it is over (stdio); it must not be called with that connection's lock held.
	forget func()

	// prompts: promptsListChanged was requested and is honoured (prompts.go).
	prompts bool
	// resources: resourcesListChanged was requested and is honoured; updates are
	// the notifications/resources/updated sent right after the acknowledgement for
	// the acknowledged resourceSubscriptions (resources.go).
	resources bool
	updates   [][]byte
}

// end marks the subscription over.
func (l *listener) end() {
	l.endOnce.Do(func() {
		close(l.ended)
		if l.forget != nil {
			l.forget()
		}
	})
}

// send writes one message of the subscription, after the acknowledgement.
func (l *listener) send(msg []byte) error {
	l.gate.Lock()
	defer l.gate.Unlock()
	return l.out.send(msg)
}

// start registers the subscription and sends its acknowledgement (unless a fault
// drops it) before any notification can go out: a change announced meanwhile waits
// for the gate, and a change after start returns is sure to reach it.
func (l *listener) start(ms *modernState, ack []byte, sendAck bool) error {
	l.gate.Lock()
	defer l.gate.Unlock()
	ms.addListener(l)
	if !sendAck {
		return nil
	}
	if err := l.out.send(ack); err != nil {
		return err
	}
	if l.stray != nil {
		if err := l.out.send(l.stray); err != nil {
			return err
		}
	}
	for _, msg := range l.updates {
		if err := l.out.send(msg); err != nil {
			return err
		}
	}
	return nil
}

// tagged returns _meta tagging a message of this subscription.
func (l *listener) tagged() map[string]any { return map[string]any{metaSubscriptionID: l.id} }

func (ms *modernState) toolList() (bool, int) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.dynamicOn, ms.listVersion
}

// toggleDynamic switches test_dynamic_tool and returns the listeners to tell: those
// that asked for toolsListChanged, or every one when unfiltered (a fault).
func (ms *modernState) toggleDynamic(unfiltered bool) (on bool, tell []*listener) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.dynamicOn = !ms.dynamicOn
	ms.listVersion++
	for l := range ms.listeners {
		if l.tools || unfiltered {
			tell = append(tell, l)
		}
	}
	return ms.dynamicOn, tell
}

func (ms *modernState) recordCancel(rawID string) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.lastCancelled = rawID
}

func (ms *modernState) lastCancellation() string {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.lastCancelled
}

func (ms *modernState) addListener(l *listener) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.listeners[l] = true
}

// removeListener reports whether l was still registered.
func (ms *modernState) removeListener(l *listener) bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	was := ms.listeners[l]
	delete(ms.listeners, l)
	return was
}

// isModernMessage reports whether a message opens the modern era: a request whose
// params._meta carries either per-request protocol field. A dual-era server serves
// those statelessly and everything else under legacy semantics.
func isModernMessage(m *wire.Message) bool {
	if m.Kind != wire.KindRequest {
		return false
	}
	p, e := paramsObject(m.Params)
	if e != nil {
		return false
	}
	meta, _, e := p.optObject("_meta")
	if e != nil || meta == nil {
		return false
	}
	_, v := meta[metaProtocolVersion]
	_, c := meta[metaClientCaps]
	return v || c
}

// modernMeta is a request's checked per-request metadata.
type modernMeta struct {
	rev      revision.Revision
	caps     params
	logLevel int // index into logLevels; -1 when the request asked for no logs
}

// errMissingMeta answers a request without a required _meta field: -32602 (HTTP 400).
func errMissingMeta(key string) *rpcError {
	return errInvalidParams("_meta[%q] is required on every request (2026-07-28)", key)
}

// errUnsupportedVersion is -32022 with the versions this server serves.
func (c *config) errUnsupportedVersion(requested string) *rpcError {
	return &rpcError{Code: CodeUnsupportedVersion,
		Message: fmt.Sprintf("Unsupported protocol version %q (supported: %s)", requested, strings.Join(c.modernVersionNames(), ", ")),
		Data:    map[string]any{"supported": c.modernVersionNames(), "requested": requested}}
}

// errInitializeRefused answers initialize on a modern-only server: the versions it
// supports are named, in the message and as -32022's data (MOD-LEGACY-INIT-01).
func (c *config) errInitializeRefused(raw json.RawMessage) *rpcError {
	requested := ""
	if p, e := paramsObject(raw); e == nil {
		requested, _, _ = p.optString("protocolVersion")
	}
	if c.faults.on(faultR5InitUnnamed) {
		return errInvalidRequest("initialize is not supported")
	}
	e := c.errUnsupportedVersion(requested)
	e.Message = "initialize is not supported: this server speaks only the stateless protocol versions " +
		strings.Join(c.modernVersionNames(), ", ") + " (no initialize handshake)"
	return e
}

// checkModernMeta reads and checks params._meta of a modern request: both required
// fields present (-32602), the version served (-32022), a known logLevel (-32602).
func (c *config) checkModernMeta(raw json.RawMessage) (modernMeta, *rpcError) {
	p, e := paramsObject(raw)
	if e != nil {
		return modernMeta{}, e
	}
	meta, present, e := p.optObject("_meta")
	if e != nil {
		return modernMeta{}, e
	}
	unchecked := c.faults.on(faultR5MetaUnchecked)
	if !present && !unchecked {
		return modernMeta{}, errInvalidParams("params._meta is required on every request (2026-07-28)")
	}
	version, hasVersion, e := meta.optString(metaProtocolVersion)
	if e != nil {
		return modernMeta{}, e
	}
	switch {
	case !hasVersion && unchecked:
		version = c.modernVersionNames()[0]
	case !hasVersion:
		return modernMeta{}, errMissingMeta(metaProtocolVersion)
	}
	caps, hasCaps, e := meta.optObject(metaClientCaps)
	if e != nil {
		return modernMeta{}, e
	}
	if !hasCaps && !unchecked {
		return modernMeta{}, errMissingMeta(metaClientCaps)
	}
	rev, ok := c.modernRevision(version)
	if !ok && c.faults.on(faultR5VersionAccepted) {
		rev, ok = c.modernRevs[0], true
	}
	if !ok {
		return modernMeta{}, c.errUnsupportedVersion(version)
	}
	mm := modernMeta{rev: rev, caps: caps, logLevel: -1}
	level, hasLevel, e := meta.optString(metaLogLevel)
	if e != nil {
		return modernMeta{}, e
	}
	if hasLevel {
		mm.logLevel = logLevelIndex(level)
		if mm.logLevel < 0 && !c.faults.on(faultLogLevelAccepted) {
			return modernMeta{}, errUnknownLogLevel(c.faults, "unknown log level %q in _meta[%q] (want one of %v)", level, metaLogLevel, logLevels)
		}
	}
	return mm, nil
}

// newModernSession makes the session of one modern request: it holds only what the
// request itself carries (version, capabilities, log level) and reads the tool list
// from the server-wide modern state.
func newModernSession(parent context.Context, cfg *config, method string, mm modernMeta) *session {
	s := newSession(parent, cfg)
	if cfg.faults.on(faultR5StickyCaps) {
		mm.caps = cfg.modern.stickyCaps(mm.caps)
	}
	s.initialized, s.rev, s.clientCaps, s.clientReady = true, mm.rev, mm.caps, true
	s.shared, s.modernMethod = cfg.modern, method
	s.logOff = mm.logLevel < 0
	if mm.logLevel >= 0 {
		s.logLevel = mm.logLevel
	}
	return s
}

// modernMethods are the methods of the modern era. ping, logging/setLevel and
// initialize are gone (-32601); subscriptions/listen is handled by the transports,
// which own the stream it stays open on.
var modernMethods = withSharedMethods(map[string]methodFunc{
	"server/discover": handleDiscover,
	"resources/read":  handleResourcesReadModern,
})

// knownModernMethod reports whether the modern era implements method.
func knownModernMethod(method string) bool {
	_, ok := modernMethods[method]
	return ok || method == methodListen
}

// methodListen opens a subscription stream.
const methodListen = "subscriptions/listen"

// dispatchModern answers one modern request on its own session.
func (s *session) dispatchModern(m *wire.Message, out sink) *reply {
	fn, found := modernMethods[m.Method]
	if m.Method == "ping" && s.cfg.faults.on(faultR5PingServed) {
		fn, found = handlePingModern, true
	}
	if !found {
		e := s.cfg.modernMethodNotFound(m.Method)
		if s.cfg.faults.on(faultUnknownMethodIntern) && m.Method != "server/discover" {
			e = errInternal(fmt.Errorf("no handler for %s", m.Method))
		}
		return readyReply(s.notFoundReply(m.ID, e))
	}
	oc := fn(s, &request{id: m.ID, method: m.Method, params: m.Params, rev: s.rev, out: out})
	if oc.async == nil {
		r := readyReply(s.encodeOutcome(m.ID, oc))
		r.after = oc.after // what a fault sends after the response (progress-after-response)
		return r
	}
	return s.startAsync(m.ID, m.Method, oc.async)
}

// modernMethodNotFound is -32601 for a method the modern era does not have, or with
// fault r5-reserved-error-code the undefined -32050 of the range 2026-07-28 reserves.
func (c *config) modernMethodNotFound(method string) *rpcError {
	e := errMethodNotFound(method)
	if c.faults.on(faultR5ReservedCode) {
		e.Code = -32050
	}
	return e
}

// handleDiscover answers server/discover (2026-07-28 server/discover).
func handleDiscover(s *session, rq *request) outcome {
	if _, e := paramsObject(rq.params); e != nil {
		return fail(e)
	}
	caps := serverCapabilities(s.rev, s.cfg.faults)
	if _, ok := caps["resources"]; ok {
		caps["resources"] = resourcesCapability(s.cfg.faults, true)
	}
	if s.cfg.faults.on(faultR5ExtUnprefixed) {
		caps["extensions"] = map[string]any{"tasks": map[string]any{}}
	}
	return respond(map[string]any{
		"supportedVersions": s.cfg.modernVersionNames(),
		"capabilities":      caps,
		"instructions":      Instructions,
	})
}

// handlePingModern serves the removed ping to a modern request (fault r5-ping-served).
func handlePingModern(*session, *request) outcome { return respond(map[string]any{}) }

// handleResourcesReadModern is resources/read with 2026-07-28's not-found code:
// -32602 (the -32002 of earlier revisions is retired).
func handleResourcesReadModern(s *session, rq *request) outcome {
	oc := handleResourcesRead(s, rq)
	if oc.err != nil && oc.err.Code == CodeResourceNotFound {
		oc.err = &rpcError{Code: wire.CodeInvalidParams, Message: oc.err.Message, Data: oc.err.Data}
	}
	return oc
}

// modernServerInfo is the Implementation reported in every modern result's _meta.
func modernServerInfo(rev revision.Revision, fs faultSet) map[string]any { return serverInfo(rev, fs) }

// decorateModern adds what every modern result carries: resultType ("complete"
// unless the handler set one, e.g. "input_required"), _meta serverInfo, and, on
// complete results of cacheable methods, ttlMs and cacheScope. It edits the encoded
// result's top level in place: a page of tools is encoded once, not decoded and
// encoded again.
func (s *session) decorateModern(result any) (encodedResult, error) {
	raw, ok := result.(encodedResult)
	if !ok {
		var err error
		if raw, err = json.Marshal(result); err != nil {
			return nil, fmt.Errorf("encode result: %w", err)
		}
	}
	obj, ok := newRawObject(raw)
	if !ok {
		return nil, fmt.Errorf("a result must be an object, not %.40s", raw)
	}
	fs := s.cfg.faults
	if _, set := obj.get("resultType"); !set && !fs.on(faultR5MissingResultType) {
		obj.set("resultType", json.RawMessage(`"complete"`))
	}
	rawMeta, present := obj.get("_meta")
	meta, isObject := newRawObject(rawMeta)
	switch {
	case present && !isObject:
		// A fault's broken _meta (follow-page-invalid) stays as the handler set it.
	case !fs.on(faultR5NoServerInfo):
		if !present {
			meta, _ = newRawObject([]byte("{}"))
		}
		info, err := json.Marshal(modernServerInfo(s.rev, fs))
		if err != nil {
			return nil, fmt.Errorf("encode serverInfo: %w", err)
		}
		meta.set(metaServerInfo, info)
		obj.set("_meta", meta.encode())
	}
	noTTL := fs.on(faultR5NoTTL)
	if s.modernMethod == "server/discover" {
		noTTL = fs.on(faultR5DiscoverNoTTL)
	}
	rt, _ := obj.get("resultType")
	if cacheableMethods[s.modernMethod] && string(rt) != `"input_required"` && !noTTL {
		obj.set("ttlMs", json.RawMessage(strconv.Itoa(modernTTLMs)))
		if _, set := obj.get("cacheScope"); !set { // a fault's own scope (r5-cache-scope-mixed) stays
			obj.set("cacheScope", json.RawMessage(strconv.Quote(modernCacheScope)))
		}
	}
	return encodedResult(obj.encode()), nil
}

// rawObject is an encoded JSON object (from json.Marshal: compact, no duplicate keys)
// whose top-level members can be replaced or added without decoding the others.
type rawObject struct {
	raw     []byte
	keys    []string
	values  []json.RawMessage
	changed bool
}

// newRawObject reads the members of raw; ok is false when raw is not an object.
func newRawObject(raw []byte) (*rawObject, bool) {
	o := &rawObject{raw: raw}
	ok := len(raw) > 0 && rawjson.Spans(raw, func(key string, start, end int) bool {
		o.keys, o.values = append(o.keys, key), append(o.values, raw[start:end:end])
		return true
	})
	return o, ok
}

func (o *rawObject) get(key string) (json.RawMessage, bool) {
	for i, k := range o.keys {
		if k == key {
			return o.values[i], true
		}
	}
	return nil, false
}

// set replaces the member's value, or adds the member after the others.
func (o *rawObject) set(key string, value json.RawMessage) {
	o.changed = true
	for i, k := range o.keys {
		if k == key {
			o.values[i] = value
			return
		}
	}
	o.keys, o.values = append(o.keys, key), append(o.values, value)
}

// encode writes the object, members in order.
func (o *rawObject) encode() json.RawMessage {
	if !o.changed {
		return o.raw
	}
	out := make([]byte, 0, len(o.raw)+256)
	out = append(out, '{')
	for i, k := range o.keys {
		if i > 0 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(k) // a string always encodes
		out = append(append(append(out, key...), ':'), o.values[i]...)
	}
	return append(out, '}')
}

// visibleIn filters a tool list to the tools served in a revision.
func visibleIn(all []listed, rev revision.Revision) []listed {
	// In place: the one caller passes the fresh slice registry.list built.
	return slices.DeleteFunc(all, func(e listed) bool { return e.t != nil && !e.t.servedIn(rev) })
}

// servedIn reports whether the tool exists in a revision: modern-only tools are
// listed and callable only in the modern era.
func (t *tool) servedIn(rev revision.Revision) bool {
	return !t.modernOnly || rev.Era == revision.Modern
}

// announceToolsChanged sends notifications/tools/list_changed, tagged, to every
// listen stream that asked for toolsListChanged.
func announceToolsChanged(cfg *config, tell []*listener) {
	if cfg.faults.on(faultR5ListChangedSilent) {
		return
	}
	for _, l := range tell {
		p := map[string]any{"_meta": l.tagged()}
		switch {
		case cfg.faults.on(faultR5ListenUntagged):
			p = map[string]any{}
		case cfg.faults.on(faultR5ListChangedBadTag):
			p = map[string]any{"_meta": map[string]any{metaSubscriptionID: true}}
		}
		msg, err := encodeNotification("notifications/tools/list_changed", p)
		if err != nil {
			cfg.log.Printf("list_changed: %v", err)
			continue
		}
		if err := l.send(msg); err != nil {
			cfg.log.Printf("list_changed to subscription %s: %v", l.id, err)
		}
	}
}

// openListen checks a subscriptions/listen request and returns its listener and the
// acknowledgement, the first message of the subscription: the honoured subset of the
// filter (toolsListChanged, promptsListChanged while prompts.listChanged is
// declared, and the resource members: listenResources), tagged with the
// subscription id (the request's id).
func openListen(cfg *config, m *wire.Message, out sink) (*listener, []byte, *rpcError) {
	p, e := paramsObject(m.Params)
	if e != nil {
		return nil, nil, e
	}
	filter, present, e := p.optObject("notifications")
	if e != nil {
		return nil, nil, e
	}
	if !present {
		return nil, nil, errInvalidParams("subscriptions/listen needs a notifications filter")
	}
	l := &listener{id: m.ID, out: out, ended: make(chan struct{})}
	honoured := map[string]any{}
	if raw, ok := filter["toolsListChanged"]; ok && string(compactRaw(raw)) == "true" {
		l.tools = true
		honoured["toolsListChanged"] = true
	}
	if raw, ok := filter["promptsListChanged"]; ok && string(compactRaw(raw)) == "true" && promptsListChangedDeclared(cfg.faults) {
		l.prompts = true
		honoured["promptsListChanged"] = true
	}
	if e := listenResources(cfg, filter, l, honoured); e != nil {
		return nil, nil, e
	}
	ackParams := map[string]any{"notifications": honoured, "_meta": l.tagged()}
	if cfg.faults.on(faultR5ListenUntagged) {
		delete(ackParams, "_meta")
	}
	ack, err := encodeNotification("notifications/subscriptions/acknowledged", ackParams)
	if err != nil {
		return nil, nil, errInternal(err)
	}
	if cfg.faults.on(faultR5LogOnListen) {
		l.stray, err = encodeNotification("notifications/message", map[string]any{
			"level": "info", "data": "subscription opened", "_meta": l.tagged()})
		if err != nil {
			return nil, nil, errInternal(err)
		}
	}
	return l, ack, nil
}

// endSubscription ends an open subscription on the server's own initiative (its
// shutdown, or test_end_subscription): the listen request gets its completion
// result, the graceful closure of 2026-07-28/basic/patterns/subscriptions.mdx, and
// its stream ends. Fault r5-listen-end-silent ends it without a word. It reports
// whether l was still open.
//
// subscriptions.mdx says SHOULD send the completion result, cancellation.mdx MUST
// send notifications/cancelled naming the listen request; one message cannot be
// both, and a cancellation of a request answered already would name one no longer
// in progress, so the reference server sends the result (NOTIF-LISTEN-CLOSE-R5-01
// accepts either).
func (c *config) endSubscription(l *listener) bool {
	if !c.modern.removeListener(l) {
		return false
	}
	defer l.end()
	if c.faults.on(faultR5ListenEndSilent) {
		return true
	}
	if err := l.send(listenClosed(l)); err != nil {
		c.log.Printf("listen %s: %v", l.id, err)
	}
	return true
}

// endSubscriptions ends every open subscription whose listen request had id, and
// returns how many (test_end_subscription).
func (c *config) endSubscriptions(id wire.ID) int {
	c.modern.mu.Lock()
	var open []*listener
	for l := range c.modern.listeners {
		if l.id.Key() == id.Key() {
			open = append(open, l)
		}
	}
	c.modern.mu.Unlock()
	n := 0
	for _, l := range open {
		if c.endSubscription(l) {
			n++
		}
	}
	return n
}

// listenClosed is the result that ends a subscription the server tears down
// (graceful closure): complete, tagged with the subscription id.
func listenClosed(l *listener) []byte {
	b, err := encodeResultResponse(l.id, map[string]any{
		"resultType": "complete",
		"_meta":      map[string]any{metaSubscriptionID: l.id, metaServerInfo: modernServerInfo(revision.MustLookup("2026-07-28"), nil)},
	})
	if err != nil {
		panic(fmt.Sprintf("fixtures: encode listen result: %v", err))
	}
	return b
}
