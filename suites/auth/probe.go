package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
)

// maxDocBytes bounds a metadata document the checks read.
const maxDocBytes = 1 << 20

// reply is what one probe got: the status and headers, the body of a metadata
// document (nil for MCP requests, whose body is not read: a served request may
// answer with a stream), or the error when nothing came.
type reply struct {
	status int
	header http.Header
	body   []byte
	err    error
}

func (r reply) describe() string {
	if r.err != nil {
		return "no reply: " + r.err.Error()
	}
	return fmt.Sprintf("HTTP %d", r.status)
}

func is2xx(status int) bool { return status >= 200 && status < 300 }

// send makes one request of the check's own, bounded by t.Ctx and the run's
// timeout (AuthTarget.Client). readBody reads up to maxDocBytes of the reply.
func send(t *conform.T, at conform.AuthTarget, method, target string, h http.Header, body []byte, readBody bool) reply {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Ctx, method, target, rd)
	if err != nil {
		return reply{err: fmt.Errorf("build the request: %w", bareErr(err))}
	}
	for k, vs := range at.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	resp, err := at.Client.Do(req)
	if err != nil {
		return reply{err: bareErr(err)}
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	if readBody {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
		if err != nil {
			return reply{status: resp.StatusCode, header: resp.Header, err: fmt.Errorf("read the body: %w", bareErr(err))}
		}
		if len(b) > maxDocBytes {
			return reply{status: resp.StatusCode, header: resp.Header, err: fmt.Errorf("the body exceeds %d bytes", maxDocBytes)}
		}
		r.body = b
	}
	return r
}

// bareErr drops the URL from a client error: a probe's URL may carry the run's
// token (AUTH-QUERY-TOKEN-01), which no message may show.
func bareErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s: no reply within the deadline", ue.Op)
		}
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// initializeBody is the request every token probe sends: initialize, the request a
// client's first contact is (the version is fixed so that every column judges one
// probe the same way).
const initializeBody = `{"jsonrpc":"2.0","id":"mcp-conform-auth","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-conform","version":"auth-probe"}}}`

// postInitialize POSTs initialize to target with the header overrides h.
func postInitialize(t *conform.T, at conform.AuthTarget, target string, h http.Header) reply {
	hh := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for k, vs := range h {
		hh[k] = vs
	}
	return send(t, at, http.MethodPost, target, hh, []byte(initializeBody), false)
}

// bare is the run's one probe without any token: what the server does with a
// client's first request (Once: every column judges the same answer).
func bare(t *conform.T, at conform.AuthTarget) reply {
	return t.Once("auth:bare", func() any { return postInitialize(t, at, at.URL, nil) }).(reply)
}

// protectedOr ends the check as not-applicable unless the server challenged the
// request without a token: 401, or 403 with a Bearer challenge (which AUTH-401-01
// judges). Authorization is OPTIONAL ({rev}/basic/authorization.mdx, Introduction).
// It returns the target and the probe.
func protectedOr(t *conform.T) (conform.AuthTarget, reply) {
	at, ok := t.AuthTarget()
	if !ok {
		t.SkipNow(conform.NotApplicable, "the authorization rules are judged over Streamable HTTP; the target is served over HTTP+SSE")
	}
	r := bare(t, at)
	if r.err != nil {
		t.ErrorNow("not verified: a request without a token got %s", r.describe())
	}
	if r.status == http.StatusUnauthorized {
		return at, r
	}
	if r.status == http.StatusForbidden {
		if cs, err := parseChallenges(r.header.Values("WWW-Authenticate")); err == nil {
			if _, ok := bearer(cs); ok {
				return at, r
			}
		}
	}
	t.SkipNow(conform.NotApplicable, "initialize without a token got HTTP %d, no challenge: the server does not require authorization, which is OPTIONAL", r.status)
	return at, r
}

// bearerOf parses a reply's WWW-Authenticate and returns its Bearer challenge.
func bearerOf(r reply) (challenge, error) {
	lines := r.header.Values("WWW-Authenticate")
	if len(lines) == 0 {
		return challenge{}, errors.New("no WWW-Authenticate header")
	}
	cs, err := parseChallenges(lines)
	if err != nil {
		return challenge{}, fmt.Errorf("WWW-Authenticate %q does not parse: %w", strings.Join(lines, ", "), err)
	}
	b, ok := bearer(cs)
	if !ok {
		return challenge{}, fmt.Errorf("WWW-Authenticate %q has no Bearer challenge", strings.Join(lines, ", "))
	}
	return b, nil
}

// metadataURL checks a resource_metadata value: an absolute http(s) URL without a
// fragment (RFC 9728 §5.1: "the URL of the protected resource metadata").
func metadataURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return nil, fmt.Errorf("resource_metadata %q is not a URL: %w", v, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("resource_metadata %q is not an absolute http(s) URL", v)
	case u.Fragment != "":
		return nil, fmt.Errorf("resource_metadata %q has a fragment", v)
	}
	return u, nil
}

// wellKnown are the Protected Resource Metadata URIs of an MCP endpoint, in the
// order clients try them ({rev}/basic/authorization.mdx, Protected Resource Metadata
// Discovery Requirements; RFC 9728 §3.1): the suffix inserted before the endpoint's
// path, then at the root. Each comes with the resource identifiers the document
// may name (§3.3): for the path form the endpoint's URL; for the root the origin,
// or the endpoint's URL (the spec offers the root for the endpoint's metadata).
func wellKnown(endpoint string) []metaSource {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	const suffix = "/.well-known/oauth-protected-resource"
	resource := origin + u.EscapedPath()
	var out []metaSource
	if p := u.EscapedPath(); p != "" && p != "/" {
		out = append(out, metaSource{url: origin + suffix + p, via: "the well-known URI of the endpoint's path", resources: []string{resource}})
	}
	return append(out, metaSource{url: origin + suffix, via: "the well-known URI at the root", resources: []string{origin, resource}})
}

// metaSource is where a metadata document was looked for.
type metaSource struct {
	url, via  string
	resources []string // the resource values RFC 9728 §3.3 allows there
}

// metaDoc is the Protected Resource Metadata as a client finds it.
type metaDoc struct {
	src   metaSource
	r     reply
	found bool           // a 200 came
	obj   map[string]any // the document, when it is a JSON object
	bad   string         // why the document is not valid JSON of application/json
	tried []string       // what each place tried answered
	// offOrigin is the challenge's resource_metadata when it names another origin
	// than the target's: the suite does not fetch it, and judges no document.
	offOrigin string
}

// sameOrigin reports whether u has the scheme and host of the URL target.
func sameOrigin(u *url.URL, target string) bool {
	t, err := url.Parse(target)
	return err == nil && strings.EqualFold(u.Scheme, t.Scheme) && strings.EqualFold(u.Host, t.Host)
}

// findMetadata fetches the Protected Resource Metadata in the order clients must
// follow: the challenge's resource_metadata when present, else the well-known URIs
// in order. Once per run.
func findMetadata(t *conform.T, at conform.AuthTarget, ch challenge) metaDoc {
	return t.Once("auth:prm", func() any {
		var sources []metaSource
		if v, ok := ch.Params["resource_metadata"]; ok {
			if u, err := metadataURL(v); err == nil {
				if !sameOrigin(u, at.URL) {
					// The suite sends nothing to another origin than the target's
					// (a server could aim it anywhere): that document is not read.
					return metaDoc{offOrigin: v}
				}
				sources = append(sources, metaSource{url: v, via: "the challenge's resource_metadata", resources: []string{at.URL}})
			}
		}
		if len(sources) == 0 {
			sources = wellKnown(at.URL)
		}
		var d metaDoc
		for _, src := range sources {
			r := send(t, at, http.MethodGet, src.url, http.Header{"Accept": {"application/json"}}, nil, true)
			d.tried = append(d.tried, fmt.Sprintf("%s (%s) → %s", src.url, src.via, r.describe()))
			if r.err != nil || r.status != http.StatusOK {
				if r.err == nil && r.status == http.StatusNotFound {
					continue
				}
				d.src, d.r = src, r
				return d
			}
			d.src, d.r, d.found = src, r, true
			d.obj, d.bad = decodeDoc(r)
			return d
		}
		return d
	}).(metaDoc)
}

// decodeDoc reads a metadata reply: application/json (RFC 9728 §3.2, RFC 8414 §3.2)
// holding a JSON object.
func decodeDoc(r reply) (map[string]any, string) {
	mt, _, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, fmt.Sprintf("Content-Type %q, not application/json", r.header.Get("Content-Type"))
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, "the body is not a JSON object"
	}
	if dec.More() {
		return nil, "the body holds more than one JSON value"
	}
	return obj, ""
}

// stringArray reads a member that must be a JSON array of strings; ok is false when
// it is something else, present says whether it is there.
func stringArray(obj map[string]any, name string) (vs []string, present, ok bool) {
	raw, present := obj[name]
	if !present {
		return nil, false, true
	}
	arr, isArr := raw.([]any)
	if !isArr {
		return nil, true, false
	}
	for _, x := range arr {
		s, isStr := x.(string)
		if !isStr {
			return nil, true, false
		}
		vs = append(vs, s)
	}
	return vs, true, true
}

// absoluteHTTPURL reports whether s is an absolute http(s) URL without query or
// fragment (an issuer identifier, RFC 8414 §2).
func absoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.RawQuery == "" && u.Fragment == ""
}
