package wire

import "time"

// MergeByTime merges extra into list, both in time order: each extra element goes
// after every element of list at or before its time, and seq gives it the number of
// the element it follows (the transcript never numbered it). It serves the replies an
// HTTP error status carried, which the transcript records apart (transport
// exchanges), wherever they are read beside it.
func MergeByTime[E any](list, extra []E, at func(E) time.Time, seq func(x *E, after E)) []E {
	if len(extra) == 0 {
		return list
	}
	out := make([]E, 0, len(list)+len(extra))
	i := 0
	for _, x := range extra {
		for i < len(list) && !at(list[i]).After(at(x)) {
			out = append(out, list[i])
			i++
		}
		if len(out) > 0 {
			seq(&x, out[len(out)-1])
		}
		out = append(out, x)
	}
	return append(out, list[i:]...)
}
