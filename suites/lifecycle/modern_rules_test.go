package lifecycle

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	_ "github.com/mcp-conform/mcp-conform/suites/tools" // TOOLS-LIST-ORDER-01
)

// r5Script is a scripted 2026-07-28 server: correct by default, each field breaks
// one rule.
type r5Script struct {
	noServerInfo    bool   // results carry no _meta serverInfo
	noResultType    bool   // results carry no resultType
	resultType      string // resultType of every complete result ("" = "complete")
	extensions      string // raw capabilities.extensions ("" = none)
	metaUnchecked   bool   // a request missing a _meta field is served
	versionAccepted bool   // an unsupported version is served
	versionNoData   bool   // -32022 without data
	pingServed      bool   // ping answers {}
	initOK          bool   // initialize without _meta succeeds (dual era)
	initMessage     string // the message of the initialize refusal
	capAssumed      bool   // undeclared elicitation is assumed
	serverRequest   bool   // server/discover and test_elicitation also send a server→client request
	sticky          bool   // remembers declared capabilities across requests
	noFixture       bool   // the fixture tools are not listed
	pingError       string // the error object ping is answered with ("" = -32601)
	swapFrom        int    // from this tools/list on (1-based; 0 = never), the first two tools swap places

	mu       sync.Mutex
	lists    int // tools/list requests answered
	declared map[string]json.RawMessage
	held     []string // the DiscoverResult, held back until ping (pingError)
}

const r5Version = "2026-07-28"

func (sc *r5Script) server() *conformtest.Server {
	srv := conformtest.NewServer()
	for _, m := range []string{"server/discover", "tools/list", "tools/call", "ping", "initialize"} {
		srv.Handle(m, sc.handle)
	}
	return srv
}

func (sc *r5Script) result(req *wire.Message, members map[string]any) []string {
	if members["resultType"] == nil && !sc.noResultType {
		members["resultType"] = "complete"
		if sc.resultType != "" {
			members["resultType"] = sc.resultType
		}
	}
	if !sc.noServerInfo {
		members["_meta"] = map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "scripted", "version": "1"}}
	}
	b, _ := json.Marshal(members)
	return []string{conformtest.Result(req, string(b))}
}

func errorWithData(req *wire.Message, code int, message, data string) []string {
	return []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, req.ID.Raw(), code, message, data)}
}

func (sc *r5Script) handle(req *wire.Message) []string {
	if req.Kind != wire.KindRequest {
		return nil
	}
	var p struct {
		Name string                     `json:"name"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if p.Meta == nil && req.Method == "initialize" {
		if sc.initOK {
			return []string{conformtest.Result(req, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)}
		}
		msg := sc.initMessage
		if msg == "" {
			msg = "initialize is not supported; supported versions: " + r5Version
		}
		return []string{conformtest.Error(req, -32600, msg)}
	}
	var version string
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &version)
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/clientCapabilities"], &caps)
	if !sc.metaUnchecked && (version == "" || caps == nil) {
		return []string{conformtest.Error(req, -32602, "missing _meta field")}
	}
	if version != r5Version && version != "" && !sc.versionAccepted {
		data := `{"supported":["` + r5Version + `"],"requested":"` + version + `"}`
		if sc.versionNoData {
			data = `null`
		}
		return errorWithData(req, -32022, "unsupported version", data)
	}
	if sc.sticky {
		sc.mu.Lock()
		if sc.declared == nil {
			sc.declared = map[string]json.RawMessage{}
		}
		for k, v := range caps {
			sc.declared[k] = v
		}
		caps = sc.declared
		sc.mu.Unlock()
	}
	_, elicit := caps["elicitation"]
	switch req.Method {
	case "server/discover":
		c := `{"tools":{}}`
		if sc.extensions != "" {
			c = `{"tools":{},"extensions":` + sc.extensions + `}`
		}
		out := sc.result(req, map[string]any{"supportedVersions": []string{r5Version}, "capabilities": json.RawMessage(c), "ttlMs": 1000, "cacheScope": "shared"})
		if sc.serverRequest {
			out = append([]string{`{"jsonrpc":"2.0","id":"srv-0","method":"roots/list"}`}, out...)
		}
		if sc.pingError != "" && sc.held == nil {
			// The column's open sends ping right after the first server/discover (the
			// era probe's barrier): answering ping first puts its error in the
			// transcript before the open returns, whatever the scheduling.
			sc.held = out
			return nil
		}
		return out
	case "tools/list":
		tools := []any{map[string]any{"name": "a", "inputSchema": map[string]any{"type": "object"}}}
		if !sc.noFixture {
			for _, n := range []string{toolRequiresElicitation, toolElicitation} {
				tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
			}
		}
		sc.mu.Lock()
		sc.lists++
		if sc.swapFrom > 0 && sc.lists >= sc.swapFrom && len(tools) > 1 {
			tools[0], tools[1] = tools[1], tools[0]
		}
		sc.mu.Unlock()
		return sc.result(req, map[string]any{"tools": tools, "ttlMs": 1000, "cacheScope": "shared"})
	case "ping":
		if sc.pingServed {
			return sc.result(req, map[string]any{})
		}
		if sc.pingError != "" {
			out := []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":%s}`, req.ID.Raw(), sc.pingError)}
			out, sc.held = append(out, sc.held...), []string{}
			return out
		}
	case "tools/call":
		if !elicit && !sc.capAssumed && (p.Name == toolRequiresElicitation || p.Name == toolElicitation) {
			return errorWithData(req, -32021, "elicitation required", `{"requiredCapabilities":{"elicitation":{}}}`)
		}
		switch p.Name {
		case toolRequiresElicitation:
			return sc.result(req, map[string]any{"content": []any{}})
		case toolElicitation:
			ask := map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}
			out := sc.result(req, map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"name": ask}, "requestState": "s1"})
			if sc.serverRequest {
				out = append([]string{`{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{}}`}, out...)
			}
			return out
		}
	}
	return []string{conformtest.Error(req, -32601, "method not found")}
}

func TestModernVerdicts(t *testing.T) {
	tests := []struct {
		name, id string
		sc       *r5Script
		want     reports.Status
	}{
		{"discover with serverInfo passes", "MOD-DISCOVER-INFO-01", &r5Script{}, reports.Pass},
		{"discover without serverInfo warns", "MOD-DISCOVER-INFO-01", &r5Script{noServerInfo: true}, reports.Warn},
		{"serverInfo on every result passes", "MOD-SERVERINFO-01", &r5Script{}, reports.Pass},
		{"results without serverInfo warn", "MOD-SERVERINFO-01", &r5Script{noServerInfo: true}, reports.Warn},
		{"resultType everywhere passes", "BASE-RESULTTYPE-01", &r5Script{}, reports.Pass},
		{"no resultType fails", "BASE-RESULTTYPE-01", &r5Script{noResultType: true}, reports.Fail},
		{"unknown resultType without extensions fails", "BASE-RESULTTYPE-01", &r5Script{resultType: "partial"}, reports.Fail},
		{"unknown resultType with an advertised extension passes", "BASE-RESULTTYPE-01", &r5Script{resultType: "partial", extensions: `{"com.example/partial":{}}`}, reports.Pass},
		{"-32602 for each missing field passes", "MOD-META-REQUIRED-01", &r5Script{}, reports.Pass},
		{"missing fields served fails", "MOD-META-REQUIRED-01", &r5Script{metaUnchecked: true}, reports.Fail},
		{"-32022 with data passes", "MOD-VERSION-UNSUPPORTED-01", &r5Script{}, reports.Pass},
		{"-32022 without data fails", "MOD-VERSION-UNSUPPORTED-01", &r5Script{versionNoData: true}, reports.Fail},
		{"unsupported version served fails", "MOD-VERSION-UNSUPPORTED-01", &r5Script{versionAccepted: true}, reports.Fail},
		{"ping -32601 passes", "MOD-REMOVED-01", &r5Script{}, reports.Pass},
		{"ping served warns", "MOD-REMOVED-01", &r5Script{pingServed: true}, reports.Warn},
		{"no extensions skips", "MOD-EXT-01", &r5Script{}, reports.Skip},
		{"prefixed extensions pass", "MOD-EXT-01", &r5Script{extensions: `{"io.modelcontextprotocol/ui":{},"com.example-x/tasks.v2":{"a":1}}`}, reports.Pass},
		{"unprefixed extension fails", "MOD-EXT-01", &r5Script{extensions: `{"tasks":{}}`}, reports.Fail},
		{"extension value not an object fails", "MOD-EXT-01", &r5Script{extensions: `{"com.example/x":true}`}, reports.Fail},
		{"bad prefix label fails", "MOD-EXT-01", &r5Script{extensions: `{"1com.example/x":{}}`}, reports.Fail},
		{"initialize refused naming versions passes", "MOD-LEGACY-INIT-01", &r5Script{}, reports.Pass},
		{"initialize refused naming nothing warns", "MOD-LEGACY-INIT-01", &r5Script{initMessage: "no"}, reports.Warn},
		{"initialize served is the dual era: skip", "MOD-LEGACY-INIT-01", &r5Script{initOK: true}, reports.Skip},
		{"no server requests passes", "MOD-NO-SERVER-REQ-01", &r5Script{}, reports.Pass},
		{"a server request fails", "MOD-NO-SERVER-REQ-01", &r5Script{serverRequest: true}, reports.Fail},
		{"no requests on stdout passes", "STDIO-NO-REQUESTS-R5-01", &r5Script{}, reports.Pass},
		{"a request on stdout fails", "STDIO-NO-REQUESTS-R5-01", &r5Script{serverRequest: true}, reports.Fail},
		{"-32021 for an undeclared capability passes", "MOD-CAP-MISSING-01", &r5Script{}, reports.Pass},
		{"undeclared capability assumed fails", "MOD-CAP-MISSING-01", &r5Script{capAssumed: true}, reports.Fail},
		{"no fixture tool skips", "MOD-CAP-MISSING-01", &r5Script{noFixture: true}, reports.Skip},
		{"input_required only when declared passes", "MOD-MRTR-01", &r5Script{}, reports.Pass},
		{"elicitation asked for undeclared fails", "MOD-MRTR-01", &r5Script{capAssumed: true}, reports.Fail},
		{"no input_required and no fixture skips", "MOD-MRTR-01", &r5Script{noFixture: true}, reports.Skip},
		{"stateless server passes", "MOD-STATELESS-01", &r5Script{}, reports.Pass},
		{"-32601 is in range", "BASE-ERRRANGE-01", &r5Script{pingError: `{"code":-32601,"message":"x"}`}, reports.Pass},
		{"undefined reserved code fails", "BASE-ERRRANGE-01", &r5Script{pingError: `{"code":-32050,"message":"x"}`}, reports.Fail},
		{"retired -32002 fails", "BASE-ERRRANGE-01", &r5Script{pingError: `{"code":-32002,"message":"x"}`}, reports.Fail},
		{"retired -32042 fails", "BASE-ERRRANGE-01", &r5Script{pingError: `{"code":-32042,"message":"x"}`}, reports.Fail},
		{"legacy sub-range warns", "BASE-ERRRANGE-01", &r5Script{pingError: `{"code":-32001,"message":"x"}`}, reports.Warn},
		{"no -3202x seen skips", "ERR-R5-CODES-01", &r5Script{}, reports.Skip},
		{"-32022 with its data passes", "ERR-R5-CODES-01", &r5Script{pingError: `{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"x"}}`}, reports.Pass},
		{"-32022 without data fails", "ERR-R5-CODES-01", &r5Script{pingError: `{"code":-32022,"message":"x"}`}, reports.Fail},
		{"-32021 without requiredCapabilities fails", "ERR-R5-CODES-01", &r5Script{pingError: `{"code":-32021,"message":"x","data":{}}`}, reports.Fail},
		// stdio has no HTTP headers: a -32020 there cannot mean HeaderMismatch.
		{"-32020 over stdio fails", "ERR-R5-CODES-01", &r5Script{pingError: `{"code":-32020,"message":"x"}`}, reports.Fail},
		{"remembered capabilities fail", "MOD-STATELESS-01", &r5Script{sticky: true}, reports.Fail},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := conformtest.Judge(t, tc.id, r5Version, tc.sc.server())
			if v.Status != tc.want {
				t.Errorf("%s: got %s (%s), want %s", tc.id, v.Status, v.Message, tc.want)
			}
		})
	}
}

func TestExtensionIDProblem(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"io.modelcontextprotocol/ui", true},
		{"com.example/my-ext_1.x", true},
		{"a/b", true},
		{"tasks", false},
		{"/tasks", false},
		{"com.example/", false},
		{"com.-example/x", false},
		{"com.example-/x", false},
		{"com..example/x", false},
		{"com.example/-x", false},
		{"com.example/x y", false},
	} {
		if got := extensionIDProblem(tc.id) == ""; got != tc.ok {
			t.Errorf("extensionIDProblem(%q) ok = %v, want %v (%s)", tc.id, got, tc.ok, extensionIDProblem(tc.id))
		}
	}
}

// The HTTP half of the rejection rule: the right code with a status other than 400
// is still wrong on HTTP, and right on stdio.
func TestProbeAnswerRejected(t *testing.T) {
	errResp := func(code int) *wire.Response {
		e := &wire.Error{Code: code, Message: "m"}
		return &wire.Response{Msg: &wire.Message{Kind: wire.KindError, Error: e}, Error: e}
	}
	for _, tc := range []struct {
		name   string
		a      probeAnswer
		kind   string
		wantOK bool
	}{
		{"stdio, the code", probeAnswer{resp: errResp(-32602)}, "stdio", true},
		{"stdio, another code", probeAnswer{resp: errResp(-32600)}, "stdio", false},
		{"http 400, the code", probeAnswer{resp: errResp(-32602), status: 400}, "http", true},
		{"http 2xx, the code", probeAnswer{resp: errResp(-32602)}, "http", false},
		{"http 404, the code", probeAnswer{resp: errResp(-32602), status: 404}, "http", false},
		{"a result", probeAnswer{resp: &wire.Response{Msg: &wire.Message{Kind: wire.KindResult}, Result: json.RawMessage(`{}`)}}, "stdio", false},
	} {
		if got := tc.a.rejected(tc.kind, -32602) == ""; got != tc.wantOK {
			t.Errorf("%s: ok = %v, want %v (%s)", tc.name, got, tc.wantOK, tc.a.rejected(tc.kind, -32602))
		}
	}
}

func TestInputRequiredProblems(t *testing.T) {
	rev := mustRev(t, r5Version)
	ask := `{"resultType":"input_required","inputRequests":{"n":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}`
	declared := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}`)
	undeclared := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`)
	for _, tc := range []struct {
		name, method, result string
		params               json.RawMessage
		want                 int
	}{
		{"declared, tools/call", "tools/call", ask, declared, 0},
		{"undeclared kind", "tools/call", ask, undeclared, 1},
		{"not an MRTR method", "tools/list", ask, declared, 1},
		{"neither requests nor state", "tools/call", `{"resultType":"input_required"}`, declared, 1},
	} {
		r := modern.Reply{Where: "s #1", Method: tc.method, Params: tc.params, Msg: &wire.Message{Kind: wire.KindResult, Result: json.RawMessage(tc.result)}}
		if got := inputRequiredProblems(rev, r); len(got) != tc.want {
			t.Errorf("%s: %d problems %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}

func mustRev(t *testing.T, name string) revision.Revision {
	t.Helper()
	r, ok := revision.Lookup(name)
	if !ok {
		t.Fatalf("no revision %s", name)
	}
	return r
}

// TOOLS-LIST-ORDER-01 compares the session's listing with MOD-STATELESS-01's second
// walk (toolkit.Relist) instead of walking a third time, and still judges it: a
// server whose order changes from that walk on is found (a warning: the rule is a
// SHOULD).
func TestOrderReusesTheStatelessWalk(t *testing.T) {
	for _, tc := range []struct {
		name      string
		swapFrom  int
		wantOrder reports.Status
	}{
		{"same order", 0, reports.Pass},
		{"order changes at the second walk", 3, reports.Warn}, // a SHOULD
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &r5Script{swapFrom: tc.swapFrom}
			vs := conformtest.JudgeAll(t, []string{"MOD-STATELESS-01", "TOOLS-LIST-ORDER-01"}, r5Version, sc.server())
			if vs[1].Status != tc.wantOrder {
				t.Errorf("TOOLS-LIST-ORDER-01: got %s (%s), want %s", vs[1].Status, vs[1].Message, tc.wantOrder)
			}
			// The listing, MOD-STATELESS-01's request with other context and its
			// second walk: no third walk for the order.
			if sc.lists != 3 {
				t.Errorf("tools/list answered %d times, want 3", sc.lists)
			}
		})
	}
}
