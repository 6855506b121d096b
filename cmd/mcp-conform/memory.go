package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The memory limit of a run, past gcPercent's pacing: the collector lets the heap
// grow half again past what is live, which on a large run (100,000 tools: 53 MB
// live) holds 80 MB. The limit narrows that headroom to a quarter of the live heap
// once the heap passes limitFloor, and rises with the live heap, so that the
// collector never works without pause on a live heap the limit cannot hold (a fixed
// limit made a large honest listing crawl once its live heap passed it). At 100,000
// tools the peak RSS went from 106-113 MB to 87 MB (two runs each at a fixed 72
// MiB), with no more CPU; a normal run's heap stays far below the floor.
const (
	limitFloor    = 72 << 20
	limitHeadroom = 4 // the limit is the live heap and a quarter of it, at least limitFloor
)

// paceGC sets the collector's pace for a run: with percent, gcPercent or the share
// of the live heap that gcHeadroom is, whichever is more; with limit, the memory limit
// at limitFloor or the live heap and limitHeadroom's share of it, whichever is more.
// Both follow the live heap, read after every collection.
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
					debug.SetMemoryLimit(max(limitFloor, n+n/limitHeadroom))
				}
			}
			arm()
		})
	}
	arm()
}
