package toolcall

// Probe is one request of a multi-request check and its Reply.
type Probe struct {
	Label string
	R     Reply
}
