package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The memory limit of a run, past gcPercent's pacing: the collector lets the heap
// grow half again past what is live, which on a large run (100,000 tools: 53 MB
// live) holds 80 MB. The limit narrows that headroom to a quarter of the live heap,
// and limitSlack for the runtime's own memory (the limit counts it; at 10,000 tools
// it was 6-9 MB of idle spans and 4 MB of collector metadata), once that passes
// limitFloor; it rises with the live heap, so that the collector never works without
// pause on a live heap the limit cannot hold (a fixed limit made a large honest
// listing crawl once its live heap passed it). At 100,000 tools the peak RSS went
// from 106-113 MB to 87 MB (two runs each at a fixed 72 MiB), with no more CPU. At
// 10,000 tools (31 MB live) a 48 MiB floor instead of 72 MiB took the peak RSS from
// 79-81 MB to 64 MB, for 4% more CPU (eight alternating pairs); a normal run's heap
// stays far below the floor.
const (
	limitFloor    = 48 << 20
	limitHeadroom = 4 // the limit is the live heap, a quarter of it and limitSlack, at least limitFloor
	limitSlack    = 8 << 20
)

// paceGC sets the collector's pace for a run: with percent, gcPercent or the share
// of the live heap that gcHeadroom is, whichever is more; with limit, the memory limit
// at limitFloor or the live heap, limitHeadroom's share of it and limitSlack,
// whichever is more. Both follow the live heap, read after every collection.
func paceGC(percent, limit bool) {
	if !percent && !limit {
		return
	}
	if percent {
		// Before the first collection the runtime's minimum heap (4 MB at GOGC=100)
		// scaled by the percentage sets the first target: gcHeadroom.
		debug.SetGCPercent(max(gcPercent, 100*gcHeadroom/(4<<20)))
	}
	if limit {
		debug.SetMemoryLimit(limitFloor)
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// A finalizer runs after the collection that found its object unreachable:
		// one per cycle, re-armed each time.
		sentinel := new([16]byte)
		runtime.SetFinalizer(sentinel, func(*[16]byte) {
			metrics.Read(live)
			if live[0].Value.Kind() == metrics.KindUint64 {
				n := max(int64(live[0].Value.Uint64()), 1)
				if percent {
					debug.SetGCPercent(int(max(gcPercent, 100*gcHeadroom/n)))
				}
				if limit {
					debug.SetMemoryLimit(max(limitFloor, n+n/limitHeadroom+limitSlack))
				}
			}
			arm()
		})
	}
	arm()
}
