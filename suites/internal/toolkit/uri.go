package toolkit

import "net/url"

// URIProblem says why s is not an absolute URI, RFC 3986's scheme ":" hier-part
// ("" when it is one): a resource's uri (RES-DEF-URI-01) and an embedded resource's
// or resource link's uri (ctJudgeLinkURI in suites/tools/content.go) alike.
func URIProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "not a URI (" + err.Error() + ")"
	case u.Scheme == "":
		return "a relative reference without a scheme, not a URI"
	}
	return ""
}
