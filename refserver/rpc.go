package refserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// CodeResourceNotFound is the MCP resource-not-found error of revisions 2024-11-05
// through 2025-11-25.
const CodeResourceNotFound = -32002

// rpcError is a JSON-RPC error the server answers with.
type rpcError struct {
	Code    int
	Message string
	Data    any
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func errParse(detail string) *rpcError {
	return &rpcError{Code: wire.CodeParseError, Message: "Parse error: " + detail}
}

func errInvalidRequest(detail string) *rpcError {
	return &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid Request: " + detail}
}

// errNullID refuses a request whose id is null: -32600, or with null-id-reserved-code
// -32650, a code JSON-RPC reserves for future use (BASE-ERR-CODES-01).
func errNullID(fs faultSet) *rpcError {
	if fs.on(faultNullIDReservedCode) {
		return &rpcError{Code: -32650, Message: "Null request id"}
	}
	return errInvalidRequest("the request id must be a string or an integer, not null")
}

func errMethodNotFound(method string) *rpcError {
	return &rpcError{Code: wire.CodeMethodNotFound, Message: "Method not found: " + method}
}

func errInvalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: wire.CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

func errInternal(err error) *rpcError {
	return &rpcError{Code: wire.CodeInternalError, Message: "Internal error: " + err.Error()}
}

// encodeErrorResponse writes an error response. An id that is absent or null (the
// request's id could not be read or was unusable) is written as null where JSON-RPC
// and the revision's schema require an id member (2024-11-05 … 2025-06-18), and is
// left out where the schema allows that and forbids null (2025-11-25:
// JSONRPCErrorResponse.id is optional, but when present must be a string or integer).
func encodeErrorResponse(id wire.ID, e *rpcError, omitUnusableID bool) []byte {
	errObj := map[string]any{"code": e.Code, "message": e.Message}
	if e.Data != nil {
		errObj["data"] = e.Data
	}
	env := map[string]any{"jsonrpc": "2.0", "error": errObj}
	switch {
	case !id.IsZero() && !id.IsNull():
		env["id"] = id
	case !omitUnusableID:
		env["id"] = nil
	}
	return mustMarshal(env)
}

// encodeResultResponse writes a successful response.
func encodeResultResponse(id wire.ID, result any) ([]byte, error) {
	if enc, ok := result.(encodedResult); ok {
		// json.Marshal would scan (compact) the encoded text again: at 10,000 tools
		// that scan of every page was a quarter of the server's CPU.
		idText, err := json.Marshal(id)
		if err != nil {
			return nil, fmt.Errorf("encode response to %s: %w", id, err)
		}
		b := make([]byte, 0, len(enc)+len(idText)+40)
		b = append(append(append(b, `{"id":`...), idText...), `,"jsonrpc":"2.0","result":`...)
		return append(append(b, enc...), '}'), nil
	}
	b, err := wire.EncodeResult(id, result)
	if err != nil {
		return nil, fmt.Errorf("encode response to %s: %w", id, err)
	}
	return b, nil
}

// encodedResult is a result already encoded by json.Marshal, or put together from
// members it encoded: compact, HTML-escaped, so that it is written as it is, with the
// bytes json.Marshal would have written for it.
type encodedResult []byte

// encodeNotification writes a notification; params nil leaves params out.
func encodeNotification(method string, params any) ([]byte, error) {
	b, err := wire.EncodeNotification(method, params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	return b, nil
}

// mustMarshal marshals values built by this package from JSON-safe types only.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fixtures: marshal %T: %v", v, err))
	}
	return b
}

// frame is one incoming JSON text: a single message, or a batch (a JSON array).
type frame struct {
	batch bool
	msgs  []*wire.Message
}

// parseFrame decodes one JSON text. It fails with -32700 on malformed JSON and with
// -32600 on JSON that can never be a message (a scalar, an empty array).
// Batch elements that are not objects decode to invalid messages so that each gets
// its own -32600 answer.
func parseFrame(raw []byte) (frame, *rpcError) {
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		return frame{}, errParse("the message is not valid JSON")
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			return frame{}, errParse(err.Error())
		}
		if len(elems) == 0 {
			return frame{}, errInvalidRequest("empty batch")
		}
		f := frame{batch: true}
		for _, e := range elems {
			f.msgs = append(f.msgs, decodeMessage(e).Message)
		}
		return f, nil
	}
	m := decodeMessage(trimmed)
	if m.Problem != "" && errors.Is(m.decodeErr(), wire.ErrNotObject) {
		return frame{}, errInvalidRequest("a message must be a JSON object")
	}
	return frame{msgs: []*wire.Message{m.Message}}, nil
}

// decodedMessage wraps wire.Message with the decode error, if any.
type decodedMessage struct {
	*wire.Message
	err error
}

func (d decodedMessage) decodeErr() error { return d.err }

// decodeMessage decodes one JSON value; values that are not objects come back as
// invalid messages.
func decodeMessage(raw []byte) decodedMessage {
	m, err := wire.Decode(raw)
	if err != nil {
		return decodedMessage{
			Message: &wire.Message{Raw: raw, Members: map[string]bool{}, Problem: err.Error()},
			err:     err,
		}
	}
	return decodedMessage{Message: m}
}

// looksLikeResponse reports whether an invalid message was meant as a response; those
// are never answered (answering a broken response invites a loop).
func looksLikeResponse(m *wire.Message) bool {
	return !m.Members["method"] && (m.Members["result"] || m.Members["error"])
}

// jsonKind names the JSON type of a raw value: object, array, string, number,
// boolean, null, or "" when absent.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// params is a request's params object, member by member.
type params map[string]json.RawMessage

// paramsObject decodes request params. Absent or null params are an empty object;
// anything else that is not an object is -32602.
func paramsObject(raw json.RawMessage) (params, *rpcError) {
	switch jsonKind(raw) {
	case "", "null":
		return params{}, nil
	case "object":
		var p params
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, errInvalidParams("params: %v", err)
		}
		return p, nil
	default:
		return nil, errInvalidParams("params must be an object, got %s", jsonKind(raw))
	}
}

// optString reads an optional string member; present reports whether it was there.
func (p params) optString(key string) (value string, present bool, e *rpcError) {
	raw, ok := p[key]
	if !ok {
		return "", false, nil
	}
	if jsonKind(raw) != "string" {
		return "", true, errInvalidParams("%s must be a string, got %s", key, kindOrAbsent(raw))
	}
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", true, errInvalidParams("%s: %v", key, err)
	}
	return value, true, nil
}

// reqString reads a required string member.
func (p params) reqString(key string) (string, *rpcError) {
	v, present, e := p.optString(key)
	if e != nil {
		return "", e
	}
	if !present {
		return "", errInvalidParams("missing required %s", key)
	}
	return v, nil
}

// optObject reads an optional object member (null is not an object).
func (p params) optObject(key string) (params, bool, *rpcError) {
	raw, ok := p[key]
	if !ok {
		return nil, false, nil
	}
	if jsonKind(raw) != "object" {
		return nil, true, errInvalidParams("%s must be an object, got %s", key, kindOrAbsent(raw))
	}
	var obj params
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, true, errInvalidParams("%s: %v", key, err)
	}
	return obj, true, nil
}

func kindOrAbsent(raw json.RawMessage) string {
	if k := jsonKind(raw); k != "" {
		return k
	}
	return "nothing"
}
