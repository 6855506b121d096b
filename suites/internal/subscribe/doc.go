// Package subscribe is what the checks of 2026-07-28 subscriptions share across
// groups (NOTIF-LISTEN-* in suites/notifications, STDIO-SUBID-R5-01 in
// suites/transport, CANCEL-R5-SERVER-01 in suites/utilities): opening and closing a
// subscriptions/listen stream, provoking a tool list change with a trigger, judging
// the subscription tag of what a stream carried, and reading which received
// messages came on a listen stream.
package subscribe
