// Package notifications holds the checks of the NOTIF group: the tools list_changed
// notification (listchanged.go, NOTIF-LC-), 2026-07-28's subscriptions, which
// deliver it on a stream the client opened (listen.go, NOTIF-LISTEN-), and the
// client's own notifications (notifications.go).
//
// internal/catalogue.Homes maps each ID prefix to its file; a test holds every
// check to it.
package notifications
